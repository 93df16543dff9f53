/**
 * A plain 2026-07-28 `tools/call` over HTTP, answered by its own session (session/directAnswers.ts)
 * instead of through the SDK's per-request entry, which builds a web `Request` and `Response`, a
 * transport and a dispatch with three schema parses for every call. The session is opened for
 * the request as the SDK's entry would open it, serves the request's revision and answers it as
 * `application/json`; should the handler send a notification about the call, the answer becomes
 * a stream of server-sent events (as the SDK's does).
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
import type { SessionHub } from '../session/hub.ts';
import { requestsObserved } from '../telemetry/requests.ts';
import type { McpRequest } from './mcpHttpRequest.ts';
import { SSE_HEADERS, sseEvent } from './sseEvents.ts';
import { requestOf } from './webResponse.ts';

type Id = string | number;
type Params = Record<string, unknown>;

/** Answers `req` itself and resolves true, or resolves false: the SDK's entry serves it. */
export type DirectCalls = (req: McpRequest, res: ServerResponse) => Promise<boolean>;

export function directModernCalls(hub: SessionHub, view: string | undefined): DirectCalls {
  return async (req, res) => {
    const call = plainToolCall(req);
    if (!call) return false;
    const session = hub.open({ era: 'modern', track: false, view });
    session.server.serveRevision(FIRST_MODERN_VERSION);
    const exchange = new HttpExchange(res, call.id);
    await session.server.connect(exchange);
    const answered = session.answerDirectly(call as JSONRPCMessage, {
      send: (message) => exchange.send(message),
      envelopeChecked: true,
      http: req.auth === undefined ? {} : { authInfo: req.auth },
      httpRequest: () => requestOf(req, res),
    });
    if (!answered) {
      void session.close();
      return false;
    }
    // A client that leaves before the answer cancels the call.
    res.once('close', () => {
      if (!exchange.finished) void session.close();
    });
    return true;
  };
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
 * The one exchange of a request answered directly, as the session server's transport: the
 * answer as JSON (400 for -32021, as the SDK sends it), or, once a notification about the call
 * came first, everything as server-sent events. Messages about anything else are not this
 * exchange's to carry, as with the SDK's per-request transport.
 */
class HttpExchange implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #res: ServerResponse;
  readonly #id: Id;
  #streaming = false;
  finished = false;

  constructor(res: ServerResponse, id: Id) {
    this.#res = res;
    this.#id = id;
  }

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.finished) return;
    const isAnswer = 'result' in message || 'error' in message;
    const about = isAnswer ? (message as { id?: Id }).id : options?.relatedRequestId;
    if (about !== this.#id) return;
    const res = this.#res;
    if (!isAnswer) {
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

  async close(): Promise<void> {
    this.onclose?.();
  }
}
