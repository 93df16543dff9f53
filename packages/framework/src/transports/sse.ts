/**
 * The legacy HTTP+SSE transport (MCP 2024-11-05) for old clients, on the SDK's
 * `SSEServerTransport`: `GET /sse` opens the event stream and names the message endpoint,
 * `POST /messages?sessionId=…` carries client messages.
 *
 * @module
 */
import { SSEServerTransport } from '@modelcontextprotocol/server-legacy/sse';
import type { Express, Request, Response } from 'express';
import type { SessionHub } from '../session/hub.ts';
import type { ServerCounters } from '../session/stats.ts';
import { sendJsonRpcError } from './httpApp.ts';
import type { MountedTransport } from './streamableHttp.ts';

export interface SseOptions {
  hub: SessionHub;
  counters: ServerCounters;
  /** Default `/sse`. */
  ssePath?: string;
  /** Default `/messages`. */
  messagesPath?: string;
}

export function mountSse(app: Express, options: SseOptions): MountedTransport {
  const { hub, counters } = options;
  const ssePath = options.ssePath ?? '/sse';
  const messagesPath = options.messagesPath ?? '/messages';
  const transports = new Map<string, SSEServerTransport>();

  app.get(ssePath, async (_req: Request, res: Response) => {
    const session = hub.open();
    const transport = new SSEServerTransport(messagesPath, res);
    transports.set(transport.sessionId, transport);
    // Set before connect(): the SDK chains its own close handling after ours.
    transport.onclose = () => {
      transports.delete(transport.sessionId);
    };
    await session.server.connect(transport);
  });

  app.post(messagesPath, async (req: Request, res: Response) => {
    const id = req.query.sessionId;
    const transport = typeof id === 'string' ? transports.get(id) : undefined;
    if (!transport) {
      counters.errors += 1;
      return sendJsonRpcError(res, 404, -32001, 'Session not found');
    }
    await transport.handlePostMessage(req, res, req.body);
  });

  return {
    async close() {
      const open = [...transports.values()];
      transports.clear();
      await Promise.allSettled(open.map((t) => t.close()));
    },
  };
}
