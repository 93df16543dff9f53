/**
 * A plain 2026-07-28 `tools/call` over HTTP, answered by a session (session/directAnswers.ts)
 * instead of through the SDK's per-request entry, which builds a web `Request` and `Response`, a
 * transport, a session with its SDK server and a dispatch with three schema parses for every
 * call. One session, opened with the endpoint's first such call, answers them all: a 2026 request
 * carries everything about its caller (envelope, token), so the session holds nothing of one
 * caller that another could see. Its server serves the endpoint's revision; its transport routes
 * what a handler sends about its call (notifications, logging) to that call's own HTTP exchange,
 * by a key drawn for the call — not by the JSON-RPC id, which callers choose and share — so a
 * message sent after the call answered goes nowhere. The answer is `application/json`; should
 * the handler send a notification about the call first, it becomes a stream of server-sent
 * events (as the SDK's is).
 *
 * Only the plainest calls take it: a single request, the envelope's revision the one this server
 * serves, the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers naming exactly what the
 * body does, an envelope the SDK's classifier accepts, no progress token and no log level (those
 * ask for notifications mid-call), and neither tracing nor request metrics on (they read the
 * web request). The session's own checks decide the rest (directAnswers.ts); anything refused
 * goes the SDK's way, which answers every error.
 *
 * @module
 */
import type { ServerResponse } from 'node:http';
import {
  classifyInboundRequest,
  type JSONRPCMessage,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  ProtocolErrorCode,
  type Transport,
  type TransportSendOptions,
} from '@modelcontextprotocol/server';
import { FIRST_MODERN_VERSION } from '../protocol/era.ts';
import { isPlainObject } from '../protocol/plainObject.ts';
import { isSingleRequest } from '../protocol/singleRequest.ts';
import { LazyAbort } from '../session/directContext.ts';
import type { SessionHub } from '../session/hub.ts';
import type { McpSession } from '../session/session.ts';
import { requestsObserved } from '../telemetry/requests.ts';
import type { McpRequest } from './mcpHttpRequest.ts';
import { SSE_HEADERS, sseEvent } from './sseEvents.ts';
import { requestOf } from './webResponse.ts';

type Id = string | number;
type Params = Record<string, unknown>;

/** The plain 2026 calls of one endpoint (one view), answered by their shared session. */
export class DirectModernCalls {
  readonly #hub: SessionHub;
  readonly #view: string | undefined;
  readonly #calls = new CallRoutes();
  #session: Promise<McpSession> | undefined;

  constructor(hub: SessionHub, view: string | undefined) {
    this.#hub = hub;
    this.#view = view;
  }

  /** Answers `req` itself and resolves true, or resolves false: the SDK's entry serves it. */
  async answer(req: McpRequest, res: ServerResponse): Promise<boolean> {
    const call = plainToolCall(req);
    if (!call) return false;
    this.#session ??= this.#open();
    const session = await this.#session;
    const exchange = new HttpExchange(res);
    const abort = new LazyAbort();
    const key = this.#calls.add(exchange, abort);
    const answered = session.answerDirectly(call as JSONRPCMessage, {
      send: (message) => exchange.send(message),
      abort,
      routeKey: key,
      envelopeChecked: true,
      http: req.auth === undefined ? {} : { authInfo: req.auth },
      httpRequest: () => requestOf(req, res),
    });
    if (!answered) {
      this.#calls.delete(key);
      return false;
    }
    // A client that leaves before the answer cancels the call.
    res.once('close', () => {
      this.#calls.delete(key);
      if (!exchange.finished) abort.abort(new Error('Connection closed'));
    });
    return true;
  }

  /** Aborts the calls still running and closes the session. */
  async close(): Promise<void> {
    this.#calls.abortAll(new Error('Connection closed'));
    await (await this.#session)?.close();
  }

  async #open(): Promise<McpSession> {
    const session = this.#hub.open({ era: 'modern', track: false, view: this.#view });
    session.server.serveRevision(FIRST_MODERN_VERSION);
    await session.server.connect(this.#calls);
    return session;
  }
}

/** The request when it is a plain 2026 `tools/call` (see the module's description). */
function plainToolCall(req: McpRequest): { id: Id; params: Params } | undefined {
  const body = req.body;
  if (!isSingleRequest(body) || body.method !== 'tools/call' || requestsObserved()) return;
  const { params } = body;
  if (!params || typeof params.name !== 'string') return;
  const meta = params._meta;
  if (!isPlainObject(meta) || meta[PROTOCOL_VERSION_META_KEY] !== FIRST_MODERN_VERSION) return;
  if ('progressToken' in meta || LOG_LEVEL_META_KEY in meta) return;
  const headers = req.headers;
  if (headers['mcp-protocol-version'] !== FIRST_MODERN_VERSION) return;
  if (headers['mcp-method'] !== 'tools/call' || headers['mcp-name'] !== params.name) return;
  const classified = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: FIRST_MODERN_VERSION,
    mcpMethodHeader: 'tools/call',
    mcpNameHeader: params.name,
    body,
  });
  if (classified.kind !== 'modern') return;
  return body as { id: Id; params: Params };
}

/**
 * The shared session server's transport: what a handler sends about its call goes to that
 * call's exchange, found by the key the call was given (`relatedRequestId` on the way out);
 * anything else — a message about no live call, or about none at all — is not a call's to
 * carry, as with the SDK's per-request transport.
 */
class CallRoutes implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #live = new Map<number, { exchange: HttpExchange; abort: LazyAbort }>();
  #lastKey = 0;

  add(exchange: HttpExchange, abort: LazyAbort): number {
    const key = ++this.#lastKey;
    this.#live.set(key, { exchange, abort });
    return key;
  }

  delete(key: number): void {
    this.#live.delete(key);
  }

  abortAll(reason: Error): void {
    for (const { abort } of this.#live.values()) abort.abort(reason);
    this.#live.clear();
  }

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const key = options?.relatedRequestId;
    if (typeof key === 'number') this.#live.get(key)?.exchange.send(message);
  }

  async close(): Promise<void> {
    this.#live.clear();
    this.onclose?.();
  }
}

/**
 * The HTTP answer of one call: the answer as JSON (400 for -32021, as the SDK sends it), or, once
 * a notification about the call came first, everything as server-sent events.
 */
class HttpExchange {
  readonly #res: ServerResponse;
  #streaming = false;
  finished = false;

  constructor(res: ServerResponse) {
    this.#res = res;
  }

  send(message: JSONRPCMessage): void {
    if (this.finished) return;
    const res = this.#res;
    if (!('result' in message || 'error' in message)) {
      if (!this.#streaming) {
        this.#streaming = true;
        res.writeHead(200, SSE_HEADERS);
      }
      res.write(sseEvent(message));
      return;
    }
    this.finished = true;
    if (this.#streaming) {
      res.end(sseEvent(message));
      return;
    }
    const code = 'error' in message ? message.error.code : undefined;
    const body = Buffer.from(JSON.stringify(message));
    res
      .writeHead(code === ProtocolErrorCode.MissingRequiredClientCapability ? 400 : 200, {
        'content-type': 'application/json',
        'content-length': body.length,
      })
      .end(body);
  }
}
