/**
 * Streamable HTTP at one path (default `/mcp`), on the SDK's `StreamableHTTPServerTransport`.
 *
 * Stateful (default): an `initialize` POST without a session id opens a session (its own SDK
 * server) and the response carries `Mcp-Session-Id`; later requests name it; DELETE ends it, and
 * a request naming an ended or unknown session gets 404, telling the client to start over
 * (MCP spec, basic/transports "Session Management").
 *
 * Each stateful session keeps its recent SSE events ({@link BoundedEventStore}): a client whose
 * stream broke, or that a tool switched to polling with `ctx.closeSSEStream()`, reconnects with
 * `Last-Event-ID` and gets what it missed; 2025-11-25 clients get priming events with `retry:`.
 *
 * Stateless (`stateless: true`): each POST gets a fresh server and transport that live for that
 * request only; no session ids.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Express, Request, Response } from 'express';
import type { SessionHub } from '../session/hub.ts';
import type { ServerCounters } from '../session/stats.ts';
import { BoundedEventStore } from './eventStore.ts';
import { sendJsonRpcError } from './httpApp.ts';

/** How long a client waits before reconnecting after the server closed its SSE stream (ms). */
const SSE_RETRY_MS = 1000;

export interface StreamableHttpOptions {
  hub: SessionHub;
  counters: ServerCounters;
  /** Default `/mcp`. */
  path?: string;
  /** No session ids: a fresh server per request. Default `false`. */
  stateless?: boolean;
}

export interface MountedTransport {
  /** Closes every open session of this transport. */
  close(): Promise<void>;
}

export function mountStreamableHttp(
  app: Express,
  options: StreamableHttpOptions,
): MountedTransport {
  const path = options.path ?? '/mcp';
  const handler = options.stateless ? statelessHandler(options) : statefulHandler(options);
  app.post(path, handler.handle);
  app.get(path, handler.handle);
  app.delete(path, handler.handle);
  return handler;
}

function statefulHandler({ hub, counters }: StreamableHttpOptions) {
  const transports = new Map<string, StreamableHTTPServerTransport>();

  async function handle(req: Request, res: Response): Promise<void> {
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const transport = transports.get(sessionId);
      if (!transport) {
        counters.errors += 1;
        return sendJsonRpcError(res, 404, -32001, 'Session not found');
      }
      return transport.handleRequest(req, res, req.body);
    }
    if (req.method !== 'POST' || !isInitializeRequest(req.body)) {
      counters.errors += 1;
      return sendJsonRpcError(res, 400, -32000, 'Bad Request: No valid session ID provided');
    }
    const session = hub.open();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      eventStore: new BoundedEventStore(),
      retryInterval: SSE_RETRY_MS,
      onsessioninitialized: (id) => {
        transports.set(id, transport);
      },
    });
    // Set before connect(): the SDK chains its own close handling after ours.
    transport.onclose = () => {
      if (transport.sessionId) transports.delete(transport.sessionId);
    };
    await session.server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  }

  return {
    handle,
    async close() {
      const open = [...transports.values()];
      transports.clear();
      await Promise.allSettled(open.map((t) => t.close()));
    },
  };
}

function statelessHandler({ hub, counters }: StreamableHttpOptions) {
  const open = new Set<StreamableHTTPServerTransport>();

  async function handle(req: Request, res: Response): Promise<void> {
    if (req.method !== 'POST') {
      // No session means no standalone stream to GET and nothing to DELETE.
      counters.errors += 1;
      res.setHeader('Allow', 'POST');
      return sendJsonRpcError(res, 405, -32000, 'Method not allowed: this server is stateless');
    }
    const session = hub.open({ track: false });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    open.add(transport);
    res.on('close', () => {
      open.delete(transport);
      void session.close();
    });
    await session.server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  }

  return {
    handle,
    async close() {
      const all = [...open];
      open.clear();
      await Promise.allSettled(all.map((t) => t.close()));
    },
  };
}
