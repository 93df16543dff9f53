/**
 * The handler context of a request the session answers itself (directAnswers.ts): the fields
 * of the SDK's `ServerContext`, with what most calls never touch made only when read. An echo
 * tool reads neither its abort signal nor the SDK's logging, elicitation and sampling helpers,
 * and on Node 20 an `AbortController` alone costs about a fifth of such a call's work in the
 * server; so the signal exists once a handler (or a cancellation) asks for it, and the helpers
 * are the SDK's own (`SessionServer.contextFor`), built on first use.
 *
 * @module
 */
import type {
  BaseContext,
  MessageExtraInfo,
  Notification,
  NotificationOptions,
  Request,
  RequestMethod,
  RequestOptions,
  ServerContext,
  StandardSchemaV1,
} from '@modelcontextprotocol/server';
import type { SessionServer } from './sessionServer.ts';

type McpReq = ServerContext['mcpReq'];
type Http = NonNullable<ServerContext['http']>;

/** A request's abort state, made into an `AbortSignal` only when someone reads it. */
export class LazyAbort {
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;

  get aborted(): boolean {
    return this.#aborted;
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  abort(reason?: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }
}

/** What the context is made of: the request, its abort state and where it came from. */
export interface DirectRequestParts {
  server: SessionServer;
  id: McpReq['id'];
  method: string;
  _meta: McpReq['_meta'];
  envelope: McpReq['envelope'];
  abort: LazyAbort;
  /** What the request's notifications are routed by: its id, or a key drawn for it. */
  routeKey: McpReq['id'];
  sessionId: string | undefined;
  /** The verified token of an HTTP request. */
  http: BaseContext['http'];
  /** The request's stream controls (`closeSSEStream`), as the SDK's transport hands them over. */
  transportInfo: MessageExtraInfo | undefined;
  /** Makes `ctx.http.req`, the web request, when a handler reads it. */
  httpRequest?: () => globalThis.Request;
}

const noRequestState = () => undefined;

const isStandardSchema = (value: unknown): value is StandardSchemaV1 =>
  value !== null && typeof value === 'object' && '~standard' in value;

/** `ctx.mcpReq` of a request answered here: one object of one shape, helpers on its prototype. */
class DirectRequest {
  readonly id: McpReq['id'];
  readonly method: string;
  readonly _meta: McpReq['_meta'];
  readonly envelope: McpReq['envelope'];
  readonly requestState = noRequestState;
  readonly send: McpReq['send'];
  readonly notify: McpReq['notify'];
  readonly #parts: DirectRequestParts;
  #helpers: McpReq | undefined;

  constructor(parts: DirectRequestParts) {
    const server = parts.server;
    this.id = parts.id;
    this.method = parts.method;
    this._meta = parts._meta;
    this.envelope = parts.envelope;
    this.#parts = parts;
    const related = { relatedRequestId: parts.routeKey };
    // The SDK's own `send`: with a result schema, or the spec method's own.
    this.send = ((r: Request, schemaOrOptions?: unknown, options?: RequestOptions) =>
      isStandardSchema(schemaOrOptions)
        ? server.request(r, schemaOrOptions, { ...options, ...related })
        : server.request(r as Request & { method: RequestMethod }, {
            ...(schemaOrOptions as RequestOptions | undefined),
            ...related,
          })) as McpReq['send'];
    this.notify = ((notification: Notification, options?: NotificationOptions) =>
      server.notification(notification, { ...options, ...related })) as McpReq['notify'];
  }

  get signal(): AbortSignal {
    return this.#parts.abort.signal;
  }

  get log(): McpReq['log'] {
    return this.#sdkHelpers().log;
  }

  get elicitInput(): McpReq['elicitInput'] {
    return this.#sdkHelpers().elicitInput;
  }

  get requestSampling(): McpReq['requestSampling'] {
    return this.#sdkHelpers().requestSampling;
  }

  /** The SDK's context for this request, for its logging, elicitation and sampling helpers. */
  #sdkHelpers(): McpReq {
    const { server, sessionId, http, transportInfo } = this.#parts;
    const base = { sessionId, mcpReq: this as unknown as BaseContext['mcpReq'], http };
    this.#helpers ??= server.contextFor(base, transportInfo).mcpReq;
    return this.#helpers;
  }
}

/** Whether `mcpReq` is that of a request answered by its session rather than the SDK. */
export function isDirectRequest(mcpReq: object): boolean {
  return mcpReq instanceof DirectRequest;
}

/**
 * `ctx.http` of a request that came over HTTP: its auth and stream controls, as the SDK puts
 * them there, and `req`, the web request, made only when a handler reads it.
 */
class DirectHttp {
  readonly authInfo: Http['authInfo'];
  readonly closeSSE: Http['closeSSE'];
  readonly closeStandaloneSSE: Http['closeStandaloneSSE'];
  readonly #makeRequest: (() => globalThis.Request) | undefined;
  #req: globalThis.Request | undefined;

  constructor(
    http: BaseContext['http'],
    info: MessageExtraInfo | undefined,
    makeRequest: (() => globalThis.Request) | undefined,
  ) {
    this.authInfo = http?.authInfo;
    this.closeSSE = info?.closeSSEStream;
    this.closeStandaloneSSE = info?.closeStandaloneSSEStream;
    this.#req = info?.request;
    this.#makeRequest = makeRequest;
  }

  get req(): globalThis.Request | undefined {
    this.#req ??= this.#makeRequest?.();
    return this.#req;
  }
}

/** The context the request's handler gets: what the SDK's dispatch would hand it. */
export function directContext(parts: DirectRequestParts): ServerContext {
  const { http: base, transportInfo: info } = parts;
  const overHttp = base || info?.request || info?.closeSSEStream || info?.closeStandaloneSSEStream;
  const http = overHttp ? (new DirectHttp(base, info, parts.httpRequest) as Http) : undefined;
  const mcpReq = new DirectRequest(parts);
  return { sessionId: parts.sessionId, mcpReq: mcpReq as unknown as McpReq, http };
}
