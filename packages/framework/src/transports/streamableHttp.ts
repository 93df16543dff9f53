/**
 * Streamable HTTP at one path (default `/mcp`), serving both protocol eras on one endpoint.
 *
 * Each POST is classified where it enters, with the SDK's own classifier
 * (`classifyInboundRequest`, the step `createMcpHandler` runs):
 *
 * - **2026-07-28** (the request carries the `_meta` envelope): served statelessly by the SDK's
 *   `createMcpHandler` (`legacy: 'reject'`) — a fresh session server per request reading the
 *   shared catalog, `server/discover`, header checks (-32020/-32021/-32022), `input_required`,
 *   and `subscriptions/listen` streams fed with catalog changes; a plain `tools/list` is
 *   answered from its serialized answer once the SDK gave it (toolsListCache.ts).
 * - **2025-era** (`initialize`, or no envelope): sessions as before. An `initialize` POST opens a
 *   session (its own SDK server), the response carries `Mcp-Session-Id`, later requests name it,
 *   DELETE ends it, an unknown id gets 404 (spec 2025-11-25, basic/transports "Session
 *   Management"). Each session keeps its recent SSE events ({@link BoundedEventStore}) so a
 *   client resumes with `Last-Event-ID`; server→client requests (sampling, elicitation) ride the
 *   session. A plain `tools/call` or `ping` is answered by the session itself, as JSON unless the
 *   call sends something first (sessionHttpTransport.ts). With `stateless: true` each 2025 POST
 *   gets a fresh server instead.
 *
 * The session each route opens is of that era, and every request it serves carries the era
 * on its context (`ctx.era`, protocol/era.ts): handlers never classify again.
 *
 * Before either, a body nested too deep to handle is refused (jsonDepth.ts); sessions and
 * `subscriptions/listen` streams are capped in total and per caller (sessionTable.ts,
 * listenLimits.ts).
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import {
  classifyInboundRequest,
  createMcpHandler,
  isInitializeRequest,
  PROTOCOL_VERSION_META_KEY,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { Express } from 'express';
import { principalKeyOf } from '../auth/principal.ts';
import { eraOfVersion } from '../protocol/era.ts';
import { isPlainObject } from '../protocol/plainObject.ts';
import { isSingleRequest } from '../protocol/singleRequest.ts';
import type { SessionHub } from '../session/hub.ts';
import type { ServerCounters } from '../session/stats.ts';
import { type CallerSlots, callerOf } from './callerSlots.ts';
import { DirectModernCalls } from './directHttp.ts';
import { BoundedEventStore } from './eventStore.ts';
import { refuseTooDeep } from './jsonDepth.ts';
import { DEFAULT_MAX_LISTENS, type ListenLimits, listenAdmission, sdkCap } from './listenLimits.ts';
import { type McpRequest, sendJsonRpcError } from './mcpHttpRequest.ts';
import { paramHeaderMismatch, paramHeadersOf } from './paramHeaders.ts';
import { SessionHttpTransport } from './sessionHttpTransport.ts';
import { type SessionLimits, SessionTable, sessionSlots, takeSessionSlot } from './sessionTable.ts';
import { toolsListCache } from './toolsListCache.ts';
import { serveWeb, serveWebTransport } from './webResponse.ts';

/** How long a client waits before reconnecting after the server closed its SSE stream (ms). */
const SSE_RETRY_MS = 1000;

export interface StreamableHttpOptions {
  hub: SessionHub;
  counters: ServerCounters;
  /** No session ids: a fresh server per request. Default `false`. */
  stateless?: boolean;
  /** Keep recent SSE events per 2025 session for `Last-Event-ID` resumption. Default `true`. */
  resumable?: boolean;
  /** Idle timeout and caps for 2025 sessions. */
  limits?: SessionLimits;
  /** The session slots, when shared with another transport (legacy SSE); default from `limits`. */
  sessionSlots?: CallerSlots;
  /** Caps on 2026 `subscriptions/listen` streams. */
  listenLimits?: ListenLimits;
  /** The view (virtual server) every session of this endpoint serves; the whole catalog when undefined. */
  view?: string;
}

export interface MountedTransport {
  /** Closes every open session of this transport. */
  close(): Promise<void>;
}

/** Serves one request to the endpoint: a POST (its JSON body parsed into `req.body`), GET or DELETE. */
export type McpHandler = (req: McpRequest, res: ServerResponse) => Promise<void> | undefined;

/** A Streamable HTTP endpoint not yet mounted at a path: its handler, and how to close it. */
export interface StreamableHttpEndpoint extends MountedTransport {
  /** Serves one request to the endpoint, whatever path it came by. */
  handle: McpHandler;
}

/** The endpoint's handler for both eras (the app mounts it at one path or several). */
export function streamableHttpEndpoint(options: StreamableHttpOptions): StreamableHttpEndpoint {
  const legacy = options.stateless ? statelessHandler(options) : statefulHandler(options);
  const modern = modernHandler(options);
  const handle: McpHandler = (req, res) => {
    if (req.method === 'POST' && !refuseTooDeep(req.body, res, options.counters)) return;
    if (req.method !== 'POST' || isLegacy(req)) return legacy.handle(req, res);
    return modern.handle(req, res);
  };
  return {
    handle,
    async close() {
      await Promise.allSettled([legacy.close(), modern.close()]);
    },
  };
}

/** Serves `endpoint` at `path` on `app`: POST, GET and DELETE. */
export function mountStreamableHttp(
  app: Express,
  path: string,
  endpoint: StreamableHttpEndpoint,
): void {
  app.post(path, endpoint.handle);
  app.get(path, endpoint.handle);
  app.delete(path, endpoint.handle);
}

/** The SDK's era classification, on the body already parsed (no second parse). */
function isLegacy(req: McpRequest): boolean {
  const header = (name: string) => {
    const value = req.headers[name];
    return typeof value === 'string' ? value : undefined;
  };
  return isLegacyPost(header('mcp-protocol-version'), req.body, () =>
    classifyInboundRequest({
      httpMethod: 'POST',
      protocolVersionHeader: header('mcp-protocol-version'),
      mcpMethodHeader: header('mcp-method'),
      mcpNameHeader: header('mcp-name'),
      body: req.body,
    }),
  );
}

/**
 * Whether a POST is 2025-era, answered at once for the two common cases: a single JSON-RPC
 * request without `_meta` and without a 2026 version header, which the SDK's classifier always
 * calls legacy, and a single request or notification (not `initialize`) whose `_meta` carries
 * the 2026 envelope's protocol-version claim, which it never does (it serves it as 2026 or
 * answers it with a 2026 error, both on the 2026 route, which classifies it once more anyway).
 * Anything else goes to `classify` (the SDK's), whose three zod checks per request (response?
 * error? request?) cost about 0.09 ms of every HTTP call.
 */
export function isLegacyPost(
  versionHeader: string | undefined,
  body: unknown,
  classify: () => { kind: string },
): boolean {
  if (isPlainLegacyRequest(versionHeader, body)) return true;
  if (claimsModernEnvelope(body)) return false;
  return classify().kind === 'legacy';
}

function claimsModernEnvelope(body: unknown): boolean {
  if (!isPlainObject(body) || 'result' in body || 'error' in body) return false;
  if (typeof body.method !== 'string' || body.method === 'initialize') return false;
  const meta = isPlainObject(body.params) ? body.params._meta : undefined;
  return isPlainObject(meta) && PROTOCOL_VERSION_META_KEY in meta;
}

/**
 * Whether a POST body is a single JSON-RPC request without `_meta`, and its version header
 * (if any) a 2025 one: what the SDK's classifier always calls legacy.
 */
function isPlainLegacyRequest(versionHeader: string | undefined, body: unknown): boolean {
  if (versionHeader !== undefined && eraOfVersion(versionHeader) !== 'legacy') return false;
  if (!isSingleRequest(body)) return false;
  return body.params === undefined || !('_meta' in body.params);
}

/**
 * 2026-07-28 requests: the SDK's per-request entry, strict (2025 traffic never reaches it),
 * which builds a session from the hub for every request it serves; plain tool calls are answered
 * by one session shared by the endpoint's callers instead (directHttp.ts).
 */
function modernHandler({ hub, counters, listenLimits = {}, view }: StreamableHttpOptions) {
  const admitListen = listenAdmission(listenLimits, counters);
  const handler = createMcpHandler(({ era }) => hub.open({ era, track: false, view }).server, {
    legacy: 'reject',
    // The same cap as admitListen's, which answers first, naming the setting.
    maxSubscriptions: sdkCap(listenLimits.maxListens ?? DEFAULT_MAX_LISTENS),
    onerror: () => {
      counters.errors += 1;
    },
  });
  const stopNotifying = hub.addModernNotifier(handler.notify);
  const cachedToolsList = toolsListCache(hub, view);
  const directCalls = new DirectModernCalls(hub, view);
  const serve = (req: McpRequest, res: ServerResponse, keep?: (answer: Response) => void) =>
    serveWeb(
      async (request) => {
        const answer = await handler.fetch(request, {
          ...(req.auth !== undefined && { authInfo: req.auth }),
          parsedBody: req.body,
        });
        keep?.(answer);
        return answer;
      },
      req,
      res,
      req.body,
    );
  return {
    handle: (req: McpRequest, res: ServerResponse) => {
      if (!admitListen(req, res)) return;
      const cached = cachedToolsList(req, res);
      if (cached === true) return;
      // `Mcp-Param-*` headers must match the call's arguments (400, -32020), checked against
      // the catalog's schema here because the SDK checks them only for McpServer products.
      const mismatch = paramHeadersCheck(hub, req, view);
      if (mismatch) {
        counters.errors += 1;
        res
          .writeHead(400, { 'Content-Type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: mismatch.id, error: mismatch.error }));
        return;
      }
      if (cached !== false) return serve(req, res, cached);
      return directCalls.answer(req, res).then((answered) => {
        if (!answered) return serve(req, res);
      });
    },
    async close() {
      stopNotifying();
      await Promise.allSettled([directCalls.close(), handler.close()]);
    },
  };
}

/** The -32020 error for a `tools/call` whose `Mcp-Param-*` headers do not fit its arguments. */
function paramHeadersCheck(hub: SessionHub, req: McpRequest, view: string | undefined) {
  const body = req.body as
    | { id?: unknown; method?: unknown; params?: { name?: unknown; arguments?: unknown } }
    | undefined;
  if (body?.method !== 'tools/call' || typeof body.params?.name !== 'string') return undefined;
  const schema = hub.toolInputSchema(body.params.name, view);
  const headers = schema ? paramHeadersOf(schema) : [];
  if (headers.length === 0) return undefined;
  const message = paramHeaderMismatch(headers, body.params.arguments, (name) => {
    const value = req.headers[name.toLowerCase()];
    return Array.isArray(value) ? value.join(', ') : value;
  });
  if (!message) return undefined;
  return { id: body.id ?? null, error: { code: -32020, message } };
}

function statefulHandler(options: StreamableHttpOptions) {
  const { hub, counters, limits, resumable = true, view } = options;
  const slots = options.sessionSlots ?? sessionSlots(limits);
  const sessions = new SessionTable<SessionHttpTransport>(counters, limits?.idleTimeoutSeconds);

  async function handle(req: McpRequest, res: ServerResponse): Promise<void> {
    const sessionId = req.headers['mcp-session-id'];
    const owner = principalKeyOf(req.auth);
    if (typeof sessionId === 'string') {
      const transport = sessions.use(sessionId, res, owner);
      if (!transport) {
        counters.errors += 1;
        return sendJsonRpcError(res, 404, -32001, 'Session not found');
      }
      if (transport.answer(req, res)) return;
      return serveWebTransport(transport, req, res, req.body);
    }
    if (req.method !== 'POST') {
      // No session to stream or end: 2026 clients never GET or DELETE (spec: 405).
      counters.errors += 1;
      res.setHeader('Allow', 'POST');
      return sendJsonRpcError(res, 405, -32000, 'Method not allowed: no session ID provided');
    }
    if (!isInitializeRequest(req.body)) {
      counters.errors += 1;
      return sendJsonRpcError(res, 400, -32000, 'Bad Request: No valid session ID provided');
    }
    const release = takeSessionSlot(slots, callerOf(req), res, counters);
    if (!release) return;
    const session = hub.open({ era: 'legacy', view });
    const transport = new SessionHttpTransport({
      sessionIdGenerator: randomUUID,
      ...(resumable && { eventStore: new BoundedEventStore(), retryInterval: SSE_RETRY_MS }),
      onsessioninitialized: (id) => {
        sessions.add(id, transport, release, owner);
      },
    });
    // Set before connect(): the SDK chains its own close handling after ours.
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    transport.serve(session);
    await session.server.connect(transport);
    await serveWebTransport(transport, req, res, req.body);
    // Refused before it began (e.g. 406 for a wrong Accept): free the server and the slot.
    if (transport.sessionId === undefined) {
      release();
      await transport.close();
    }
  }

  return { handle, close: () => sessions.close() };
}

function statelessHandler({ hub, counters, view }: StreamableHttpOptions) {
  const open = new Set<WebStandardStreamableHTTPServerTransport>();

  async function handle(req: McpRequest, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') {
      // No session means no standalone stream to GET and nothing to DELETE.
      counters.errors += 1;
      res.setHeader('Allow', 'POST');
      return sendJsonRpcError(res, 405, -32000, 'Method not allowed: this server is stateless');
    }
    const session = hub.open({ era: 'legacy', track: false, view });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
    });
    open.add(transport);
    res.on('close', () => {
      open.delete(transport);
      void session.close();
    });
    await session.server.connect(transport);
    await serveWebTransport(transport, req, res, req.body);
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
