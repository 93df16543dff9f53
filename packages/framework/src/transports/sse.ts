/**
 * The legacy HTTP+SSE transport (MCP 2024-11-05) for old clients, on the SDK's
 * `SSEServerTransport`: `GET /sse` opens the event stream and names the message endpoint,
 * `POST /messages?sessionId=…` carries client messages. Each stream holds a session slot
 * (sessionTable.ts) for as long as it is open, shared with the Streamable HTTP sessions.
 *
 * The SDK's legacy package (its own copy of the 2025 schemas, about 2 MB of heap once loaded)
 * loads with the first stream, not with every HTTP server.
 *
 * @module
 */
import type { SSEServerTransport } from '@modelcontextprotocol/server-legacy/sse';
import type { Express, Request, Response } from 'express';
import { principalKeyOf } from '../auth/principal.ts';
import type { SessionHub } from '../session/hub.ts';
import type { ServerCounters } from '../session/stats.ts';
import { type CallerSlots, callerOf } from './callerSlots.ts';
import { refuseTooDeep } from './jsonDepth.ts';
import { sendJsonRpcError } from './mcpHttpRequest.ts';
import { sessionSlots, takeSessionSlot } from './sessionTable.ts';
import type { MountedTransport } from './streamableHttp.ts';

export interface SseOptions {
  hub: SessionHub;
  counters: ServerCounters;
  /** Default `/sse`. */
  ssePath?: string;
  /** Default `/messages`. */
  messagesPath?: string;
  /** The session slots, shared with Streamable HTTP; default the default caps. */
  sessionSlots?: CallerSlots;
}

export function mountSse(app: Express, options: SseOptions): MountedTransport {
  const { hub, counters } = options;
  const ssePath = options.ssePath ?? '/sse';
  const messagesPath = options.messagesPath ?? '/messages';
  // Each stream with the principal that opened it (`principalKeyOf`): a session id is no bearer
  // credential, and another principal's session is "not found" like any other.
  const transports = new Map<string, { transport: SSEServerTransport; owner?: string }>();
  const slots = options.sessionSlots ?? sessionSlots();

  app.get(ssePath, async (req: Request, res: Response) => {
    const { SSEServerTransport: Transport } = await import(
      '@modelcontextprotocol/server-legacy/sse'
    );
    // A client gone while the package loaded (its first stream) has no stream to hold a slot.
    if (res.destroyed) return;
    const release = takeSessionSlot(slots, callerOf(req), res, counters);
    if (!release) return;
    res.once('close', release);
    // SSE is a 2025-era transport: no 2026 request reaches it.
    const session = hub.open({ era: 'legacy' });
    const transport = new Transport(messagesPath, res);
    transports.set(transport.sessionId, { transport, owner: principalKeyOf(req.auth) });
    // Set before connect(): the SDK chains its own close handling after ours.
    transport.onclose = () => {
      transports.delete(transport.sessionId);
    };
    await session.server.connect(transport);
  });

  app.post(messagesPath, async (req: Request, res: Response) => {
    const id = req.query.sessionId;
    const open = typeof id === 'string' ? transports.get(id) : undefined;
    if (!open || open.owner !== principalKeyOf(req.auth)) {
      counters.errors += 1;
      return sendJsonRpcError(res, 404, -32001, 'Session not found');
    }
    if (!refuseTooDeep(req.body, res, counters)) return;
    await open.transport.handlePostMessage(req, res, req.body);
  });

  return {
    async close() {
      const open = [...transports.values()];
      transports.clear();
      await Promise.allSettled(open.map(({ transport }) => transport.close()));
    },
  };
}
