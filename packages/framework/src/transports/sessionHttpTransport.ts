/**
 * A 2025 session's Streamable HTTP transport: the SDK's, with the session's plain `tools/call`
 * and `ping` answered by the session itself (session/directAnswers.ts). The SDK transport builds
 * a web `Request` for every POST, parses the body against the JSON-RPC schema again and answers
 * every request as a stream of server-sent events, which the client then has to parse; here the
 * answer is one `application/json` body, which the spec leaves to the server to choose
 * (2025-11-25, basic/transports "Sending Messages to the Server").
 *
 * What a call sends before its answer — progress, log messages, elicitation or sampling requests,
 * which the session server hands its transport as related to the call — turns the answer into
 * server-sent events as the SDK sends them: with a resumable session each event kept in the
 * session's event store under its id, a priming event first, keep-alives, `closeSSEStream`,
 * and `Last-Event-ID` resumption while the call runs (once it has ended, the SDK replays the
 * stream from the same store).
 *
 * Only the plainest requests take it: one JSON-RPC request (a progress token is welcome: the
 * progress streams like any message about the call), headers the SDK would accept, and neither
 * tracing nor request metrics on (they read the web request). The session's own checks decide
 * the rest (no task, no 2026 envelope); anything refused goes the SDK's way, which answers
 * every error.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import {
  DEFAULT_NEGOTIATED_PROTOCOL_VERSION,
  isJsonContentType,
  type JSONRPCMessage,
  type MessageExtraInfo,
  SUPPORTED_PROTOCOL_VERSIONS,
  type TransportSendOptions,
  WebStandardStreamableHTTPServerTransport,
  type WebStandardStreamableHTTPServerTransportOptions,
} from '@modelcontextprotocol/server';
import { isPlainObject } from '../protocol/plainObject.ts';
import { isSingleRequest } from '../protocol/singleRequest.ts';
import type { McpSession } from '../session/session.ts';
import { requestsObserved } from '../telemetry/requests.ts';
import type { BoundedEventStore } from './eventStore.ts';
import { type McpRequest, sendJsonRpcError } from './mcpHttpRequest.ts';
import { SSE_HEADERS, sseEvent } from './sseEvents.ts';
import { requestOf } from './webResponse.ts';

/** How often a quiet event stream gets a comment, so proxies keep it open (the SDK's default). */
const KEEP_ALIVE_MS = 15_000;
/** The first revision whose clients take an event without data: the priming event. */
const PRIMING_VERSION = '2025-11-25';
const ANSWERED_HERE = new Set(['tools/call', 'ping']);

type Id = string | number;

export interface SessionHttpTransportOptions
  extends WebStandardStreamableHTTPServerTransportOptions {
  eventStore?: BoundedEventStore;
}

export class SessionHttpTransport extends WebStandardStreamableHTTPServerTransport {
  /** The calls answered here that are still running, by request id. */
  readonly #calls = new Map<Id, CallExchange>();
  /** The same calls once they stream, by stream id (what `Last-Event-ID` names). */
  readonly #streams = new Map<string, CallExchange>();
  readonly #events: BoundedEventStore | undefined;
  readonly #retryMs: number | undefined;
  #versions: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS;
  #session: McpSession | undefined;

  constructor(options: SessionHttpTransportOptions) {
    super(options);
    this.#events = options.eventStore;
    this.#retryMs = options.retryInterval;
  }

  /** The session whose calls this transport answers itself. */
  serve(session: McpSession): void {
    this.#session = session;
  }

  override setSupportedProtocolVersions(versions: string[]): void {
    this.#versions = versions;
    super.setSupportedProtocolVersions(versions);
  }

  /**
   * Serves `req` itself and says so, or says false: `handleRequest` serves it. The caller has
   * found this session by the request's `Mcp-Session-Id`.
   */
  answer(req: McpRequest, res: ServerResponse): boolean {
    const session = this.#session;
    const sessionId = this.sessionId;
    if (!session || sessionId === undefined) return false;
    const version = this.#acceptedVersion(req);
    if (version === undefined) return false;
    if (req.method === 'GET') return this.#resume(req, res);
    if (req.method !== 'POST') return false;
    const body = req.body;
    if (!isPlainObject(body)) return false;
    const message = body as JSONRPCMessage;
    // A call answered here is cancelled here; the SDK still acknowledges the notification.
    if (body.method === 'notifications/cancelled') {
      const cancelled = isPlainObject(body.params) ? body.params.requestId : undefined;
      session.answerDirectly(message, { send: () => undefined });
      if (typeof cancelled === 'string' || typeof cancelled === 'number') {
        this.#calls.get(cancelled)?.end();
      }
      return false;
    }
    if (!ANSWERED_HERE.has(body.method as string)) return false;
    if (!isSingleRequest(body) || requestsObserved()) return false;
    const accept = req.headers.accept ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return false;
    if (!isJsonContentType(req.headers['content-type'] ?? null)) return false;
    const id = (body as { id: Id }).id;
    if (this.#calls.has(id)) return false;
    const resumable =
      this.#events !== undefined &&
      (version ?? DEFAULT_NEGOTIATED_PROTOCOL_VERSION) >= PRIMING_VERSION;
    const exchange = new CallExchange(res, {
      sessionId,
      events: resumable ? this.#events : undefined,
      retryMs: this.#retryMs,
      streaming: (streamId) => this.#streams.set(streamId, exchange),
      ended: (streamId) => {
        this.#calls.delete(id);
        if (streamId !== undefined) this.#streams.delete(streamId);
      },
    });
    const transportInfo: MessageExtraInfo = resumable
      ? {
          closeSSEStream: () => exchange.closeStream(),
          closeStandaloneSSEStream: () => this.closeStandaloneSSEStream(),
        }
      : {};
    this.#calls.set(id, exchange);
    const answered = session.answerDirectly(message, {
      send: (message) => exchange.send(message),
      sessionId,
      http: req.auth === undefined ? {} : { authInfo: req.auth },
      transportInfo,
      httpRequest: () => requestOf(req, res),
    });
    if (!answered) this.#calls.delete(id);
    return answered;
  }

  /** What the session server sends about a call answered here goes with that call. */
  override async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const about = options?.relatedRequestId;
    const exchange = about === undefined ? undefined : this.#calls.get(about);
    if (exchange) return exchange.send(message);
    return super.send(message, options);
  }

  override async close(): Promise<void> {
    for (const exchange of [...this.#calls.values()]) exchange.end();
    await super.close();
  }

  /**
   * The request's `MCP-Protocol-Version` when the SDK would accept it (null: none given, the
   * session's own applies); undefined when it would refuse it, which it then does.
   */
  #acceptedVersion(req: McpRequest): string | null | undefined {
    const version = req.headers['mcp-protocol-version'];
    if (version === undefined) return null;
    return typeof version === 'string' && this.#versions.includes(version) ? version : undefined;
  }

  /** A `GET` resuming the stream of a call still running here; any other is the SDK's. */
  #resume(req: McpRequest, res: ServerResponse): boolean {
    const lastEventId = req.headers['last-event-id'];
    if (typeof lastEventId !== 'string' || !req.headers.accept?.includes('text/event-stream')) {
      return false;
    }
    const streamId = this.#events?.streamOf(lastEventId);
    const exchange = streamId === undefined ? undefined : this.#streams.get(streamId);
    if (!exchange) return false;
    if (!exchange.resume(res, lastEventId)) {
      sendJsonRpcError(res, 409, -32000, 'Conflict: Stream already has an active connection');
    }
    return true;
  }
}

interface CallExchangeOptions {
  sessionId: string;
  /** Where the call's events are kept for resumption; none: its stream cannot be resumed. */
  events: BoundedEventStore | undefined;
  retryMs: number | undefined;
  streaming(streamId: string): void;
  ended(streamId: string | undefined): void;
}

/**
 * One call's answer: one JSON body, or, once something about the call comes first, a stream of
 * server-sent events on whichever connection the client has open for it.
 */
class CallExchange {
  readonly #options: CallExchangeOptions;
  /** The connection the call's events go to; none while the client reconnects. */
  #res: ServerResponse | undefined;
  #streamId: string | undefined;
  #keepAlive: NodeJS.Timeout | undefined;
  #ended = false;

  constructor(res: ServerResponse, options: CallExchangeOptions) {
    this.#options = options;
    this.#attach(res);
  }

  send(message: JSONRPCMessage): void {
    if (this.#ended) return;
    const isAnswer = 'result' in message || 'error' in message;
    if (!isAnswer) {
      this.#stream();
      this.#emit(message);
      return;
    }
    const res = this.#res;
    if (this.#streamId === undefined && res) {
      const body = Buffer.from(JSON.stringify(message));
      res
        .writeHead(200, {
          'content-type': 'application/json',
          'content-length': body.length,
          'mcp-session-id': this.#options.sessionId,
        })
        .end(body);
    } else if (this.#streamId !== undefined) {
      this.#emit(message);
      res?.end();
    }
    this.end();
  }

  /** The handler's `closeSSEStream`: the client reconnects and resumes (`Last-Event-ID`). */
  closeStream(): void {
    if (this.#ended) return;
    this.#stream();
    const res = this.#res;
    this.#detach();
    res?.end();
  }

  /**
   * A client resuming after event `lastEventId` (kept in the session's event store, which bounds
   * what a long call keeps); false when another connection has the stream.
   */
  resume(res: ServerResponse, lastEventId: string): boolean {
    if (this.#res) return false;
    res.writeHead(200, this.#streamHeaders);
    const events = this.#options.events as BoundedEventStore;
    for (const [id, message] of events.eventsAfter(lastEventId)) res.write(sseEvent(message, id));
    this.#attach(res);
    return true;
  }

  /** Nothing more goes out: the call is answered, cancelled, or its session closed. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    const res = this.#res;
    this.#detach();
    if (res && !res.writableEnded) {
      if (res.headersSent) res.end();
      else res.writeHead(202).end();
    }
    this.#options.ended(this.#streamId);
  }

  #attach(res: ServerResponse): void {
    this.#res = res;
    res.once('close', () => {
      if (this.#res === res) this.#detach();
    });
    if (this.#streamId !== undefined) this.#armKeepAlive();
  }

  #detach(): void {
    this.#res = undefined;
    clearInterval(this.#keepAlive);
    this.#keepAlive = undefined;
  }

  /** Turns the answer into an event stream, once: headers, then the priming event. */
  #stream(): void {
    if (this.#streamId !== undefined) return;
    const streamId = randomUUID();
    this.#streamId = streamId;
    this.#res?.writeHead(200, this.#streamHeaders);
    const { events, retryMs } = this.#options;
    if (events) {
      const id = events.store(streamId, {});
      const retry = retryMs === undefined ? '' : `retry: ${retryMs}\n`;
      this.#res?.write(`id: ${id}\n${retry}data: \n\n`);
      this.#options.streaming(streamId);
    }
    if (this.#res) this.#armKeepAlive();
  }

  #emit(message: JSONRPCMessage): void {
    const id = this.#options.events?.store(this.#streamId as string, message);
    this.#res?.write(sseEvent(message, id));
  }

  get #streamHeaders(): Record<string, string> {
    return { ...SSE_HEADERS, 'mcp-session-id': this.#options.sessionId };
  }

  #armKeepAlive(): void {
    clearInterval(this.#keepAlive);
    const res = this.#res;
    this.#keepAlive = setInterval(() => res?.write(': keepalive\n\n'), KEEP_ALIVE_MS);
    this.#keepAlive.unref();
  }
}
