/**
 * The requests that carry a session's load — `tools/call` and `ping` — answered by the session
 * itself once the connection is established, instead of by the SDK's dispatch. The SDK parses a
 * `tools/call` against its schema twice and its result once, and builds a lifted copy, an
 * envelope check and a dozen closures per request: most of a stdio echo's server CPU. Here the
 * same registered handler runs with a context of the same fields (directContext.ts: the abort
 * signal and the SDK's own helpers made when first read), and the result leaves encoded by the
 * same era codec.
 *
 * What is checked instead, and why that is enough:
 * - 2025: the connection has answered `initialize`; a request carrying 2026 envelope keys goes
 *   to the SDK (which refuses it).
 * - 2026: the request's envelope is, value for value, one the SDK has already accepted on this
 *   connection (the session notes each it served, {@link DirectAnswers.accept}), or the
 *   transport had the SDK's classifier check it (HTTP, `DirectExchange.envelopeChecked`); any
 *   other envelope, and every retry carrying `inputResponses` or `requestState`, goes to the SDK.
 * - `tools/call`: `name` is a string and `arguments` an object, else the SDK answers the
 *   error; one asking to run as a task (`task`) goes to the SDK; a result other than plain
 *   text is checked against the era's schema, as the SDK would. A tool
 *   that keeps running is served the same way: its live calls and tasks keep their state
 *   beyond the session (detachedCallTable.ts, tasks.ts), so the SDK serves the retries and
 *   `tasks/*` requests that follow.
 *
 * `notifications/cancelled` for a request served here aborts it (and still reaches the SDK,
 * which finds nothing of its own to cancel); closing the session aborts what is still running.
 *
 * @module
 */
import { isDeepStrictEqual } from 'node:util';
import {
  type BaseContext,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  isInputRequiredResult,
  type JSONRPCMessage,
  type JSONRPCRequest,
  LOG_LEVEL_META_KEY,
  type MessageExtraInfo,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  type Result,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { Era } from '../protocol/era.ts';
import { isPlainObject } from '../protocol/plainObject.ts';
import { directContext, isDirectRequest, LazyAbort } from './directContext.ts';
import type { SessionServer } from './sessionServer.ts';

/** A registered request handler, as the session hands it to the SDK. */
export type DirectHandler = (request: never, ctx: ServerContext) => Promise<unknown>;

/** The reserved envelope keys, lifted out of `_meta` as the SDK lifts them. */
const ENVELOPE_KEYS = [
  PROTOCOL_VERSION_META_KEY,
  CLIENT_INFO_META_KEY,
  CLIENT_CAPABILITIES_META_KEY,
  LOG_LEVEL_META_KEY,
];

type Params = Record<string, unknown>;
type Id = string | number;

/** A request's params with the envelope lifted out of `_meta`, and the envelope. */
function lift(params: Params): { params: Params; envelope?: Params } {
  const meta = params._meta;
  if (!isPlainObject(meta)) return { params };
  let envelope: Params | undefined;
  for (const key of ENVELOPE_KEYS) {
    if (!(key in meta)) continue;
    envelope ??= {};
    envelope[key] = meta[key];
  }
  if (!envelope) return { params };
  // Copied as own properties (a key named `__proto__` stays data), without `delete`.
  const { _meta: _, ...lifted } = params;
  const others = Object.keys(meta).filter((key) => !ENVELOPE_KEYS.includes(key));
  if (others.length > 0) lifted._meta = Object.fromEntries(others.map((key) => [key, meta[key]]));
  return { params: lifted, envelope };
}

const PLAIN_RESULT_KEYS = new Set(['content', 'isError', 'structuredContent']);

/**
 * Whether a tool result is one the era's schema surely accepts, without running it: only plain
 * text blocks, a boolean `isError`, an object `structuredContent` and nothing else. Anything
 * else (images, annotations, `_meta`, …) is checked against the schema.
 */
function plainToolResult(result: Params): boolean {
  for (const key in result) if (!PLAIN_RESULT_KEYS.has(key)) return false;
  const content = result.content;
  if (!Array.isArray(content)) return false;
  for (const block of content) {
    if (!isPlainObject(block) || block.type !== 'text' || typeof block.text !== 'string') {
      return false;
    }
    for (const key in block) if (key !== 'type' && key !== 'text') return false;
  }
  if ('isError' in result && typeof result.isError !== 'boolean') return false;
  return !('structuredContent' in result) || isPlainObject(result.structuredContent);
}

/** Where a request answered here came from, and where its answer and notifications go. */
export interface DirectExchange {
  /** Sends the answer (notifications about the call go through the session server's transport). */
  send(message: JSONRPCMessage): unknown;
  /** The transport has checked the 2026 envelope itself (HTTP: the SDK's classifier did). */
  envelopeChecked?: boolean;
  /** The handlers' `ctx.http`: the verified token of an HTTP request. */
  http?: BaseContext['http'];
  /** The request's stream controls (`closeSSEStream`), as the SDK's transport hands them over. */
  transportInfo?: MessageExtraInfo;
  /** The handlers' `ctx.sessionId`: the HTTP session the request came in. */
  sessionId?: string;
  /** The handlers' `ctx.http.req`, made only when a handler reads it. */
  httpRequest?: () => globalThis.Request;
  /**
   * The request's own abort state, when its transport ends it (an HTTP call ends with its
   * exchange): the request is then not kept by its id, which callers sharing a session may
   * share; `notifications/cancelled` does not reach it.
   */
  abort?: LazyAbort;
  /**
   * What the session server's transport routes the request's notifications by
   * (`relatedRequestId`): a key unique to the request there. Unset: the request's id.
   */
  routeKey?: Id;
}

export interface DirectAnswersOptions {
  server: SessionServer;
  era: Era;
  /** The session's registered handlers of the methods answered here. */
  handlers: ReadonlyMap<string, DirectHandler>;
}

export class DirectAnswers {
  readonly #options: DirectAnswersOptions;
  /** A copy of the last 2026 envelope the SDK accepted on this connection. */
  #accepted: unknown;
  readonly #running = new Map<Id, LazyAbort>();

  constructor(options: DirectAnswersOptions) {
    this.#options = options;
  }

  /**
   * Notes the envelope of a request that reached a handler, when the SDK's dispatch brought it
   * (it checked the envelope); one answered here proves nothing.
   */
  accept(mcpReq: ServerContext['mcpReq']): void {
    if (mcpReq.envelope !== undefined && !isDirectRequest(mcpReq)) {
      // A copy: the handler holds the SDK's and may change it.
      this.#accepted = JSON.parse(JSON.stringify(mcpReq.envelope));
    }
  }

  /**
   * Answers `message` through `send` when it is one of the requests answered here, and says
   * whether it did; when it did not, the SDK serves the message.
   */
  answer(message: JSONRPCMessage, exchange: DirectExchange): boolean {
    if (!('method' in message)) return false;
    if (!('id' in message)) {
      if (message.method === 'notifications/cancelled') this.#cancel(message.params);
      return false;
    }
    const keyed = exchange.abort === undefined;
    if (keyed && this.#running.has(message.id)) return false;
    const request = this.#servable(message as JSONRPCRequest, exchange.envelopeChecked === true);
    if (!request) return false;
    const abort = exchange.abort ?? new LazyAbort();
    if (keyed) this.#running.set(request.id, abort);
    void this.#run(request, abort, exchange).then((reply) => {
      if (keyed && this.#running.get(request.id) === abort) this.#running.delete(request.id);
      if (reply && !abort.aborted) exchange.send(reply);
    });
    return true;
  }

  /** Aborts what is still running here: the connection has gone. */
  close(): void {
    const error = new Error('Connection closed');
    for (const abort of this.#running.values()) abort.abort(error);
    this.#running.clear();
  }

  /** The request as its handler sees it (envelope lifted), or undefined when the SDK serves it. */
  #servable(
    message: JSONRPCRequest,
    envelopeChecked: boolean,
  ): (JSONRPCRequest & { envelope?: Params }) | undefined {
    const { server, era, handlers } = this.#options;
    const method = message.method;
    if (method !== 'ping' && !handlers.has(method)) return undefined;
    const raw = message.params ?? {};
    if (!isPlainObject(raw)) return undefined;
    const { params, envelope } = lift(raw);
    if (era === 'legacy') {
      if (envelope || server.getClientCapabilities() === undefined) return undefined;
    } else {
      if ('inputResponses' in params || 'requestState' in params) return undefined;
      if (!envelope) return undefined;
      if (!envelopeChecked && !isDeepStrictEqual(envelope, this.#accepted)) return undefined;
    }
    if (method === 'tools/call') {
      if (typeof params.name !== 'string' || 'task' in params) return undefined;
      if (params.arguments !== undefined && !isPlainObject(params.arguments)) return undefined;
    }
    return { ...message, params, envelope };
  }

  /** Runs the request's handler and makes its answer, as the SDK's dispatch would. */
  async #run(
    request: JSONRPCRequest & { envelope?: Params },
    abort: LazyAbort,
    exchange: DirectExchange,
  ): Promise<JSONRPCMessage | undefined> {
    const { server, era, handlers } = this.#options;
    const { id, method } = request;
    try {
      const ctx = directContext({
        server,
        id,
        method,
        _meta: request.params?._meta as ServerContext['mcpReq']['_meta'],
        envelope: request.envelope,
        abort,
        routeKey: exchange.routeKey ?? id,
        sessionId: exchange.sessionId,
        http: exchange.http,
        transportInfo: exchange.transportInfo,
        httpRequest: exchange.httpRequest,
      });
      let result = (
        method === 'ping'
          ? {}
          : await (handlers.get(method) as DirectHandler)(request as never, ctx)
      ) as Result;
      if (method === 'tools/call') result = checkedToolResult(server, result);
      if (abort.aborted) return undefined;
      try {
        return { jsonrpc: '2.0', id, result: server.encodeResult(method, result) };
      } catch {
        return errorReply(id, ProtocolErrorCode.InternalError, 'Internal error');
      }
    } catch (thrown) {
      if (abort.aborted) return undefined;
      const error = urlElicitationInEra(thrown, era) as ProtocolError;
      const code = Number.isSafeInteger(error.code) ? error.code : ProtocolErrorCode.InternalError;
      return errorReply(
        id,
        server.encodeErrorCode(code),
        error.message ?? 'Internal error',
        error.data,
      );
    }
  }

  #cancel(params: unknown): void {
    const id = isPlainObject(params) ? params.requestId : undefined;
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const abort = this.#running.get(id);
    if (!abort) return;
    this.#running.delete(id);
    abort.abort((params as Params).reason);
  }
}

function errorReply(id: Id, code: number, message: string, data?: unknown): JSONRPCMessage {
  return {
    jsonrpc: '2.0',
    id,
    error: { code, message, ...(data !== undefined && { data }) },
  } as JSONRPCMessage;
}

/**
 * A tool result as the SDK's `tools/call` wrapper passes it: `input_required` as it is, a result
 * without content given empty content, then checked against the era's schema (the SDK's error
 * when it fails) unless it is plain text, which the schema surely accepts as it is.
 */
function checkedToolResult(server: SessionServer, result: unknown): Result {
  if (isInputRequiredResult(result)) return result;
  let normalized = result;
  if (isPlainObject(result) && result.content === undefined) {
    const foreign = 'task' in result || 'inputRequests' in result || 'requestState' in result;
    if (!foreign) normalized = { ...result, content: [] };
  }
  if (isPlainObject(normalized) && plainToolResult(normalized)) return normalized as Result;
  const checked = server.checkResult('tools/call', normalized);
  if (checked.ok) return checked.value as Result;
  throw new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Invalid tools/call result: ${checked.message}`,
  );
}

/**
 * A 2026 handler may not signal URL elicitation by throwing (-32042 does not exist there); the
 * SDK turns that into an internal error naming the way that works, and so does this.
 */
function urlElicitationInEra(error: unknown, era: Era): unknown {
  if (
    era !== 'modern' ||
    !(error instanceof ProtocolError) ||
    error.code !== ProtocolErrorCode.UrlElicitationRequired
  ) {
    return error;
  }
  return new ProtocolError(
    ProtocolErrorCode.InternalError,
    'URL elicitation cannot be signalled by throwing UrlElicitationRequiredError on protocol ' +
      'revision 2026-07-28: return inputRequired({ inputRequests: { …: inputRequired.elicitUrl(...) } }) ' +
      'from the handler instead.',
  );
}
