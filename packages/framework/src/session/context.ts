/**
 * The context a tool (or prompt) handler receives: the SDK's per-request context plus helpers
 * for progress, logging, sampling, elicitation and roots, the same in both protocol eras.
 *
 * The era is the session's, decided by the transport entry that opened it (protocol/era.ts)
 * and stamped on each request's context by {@link withV1Aliases}. Sampling, elicitation and
 * roots go the era's way — a real server→client request on a 2025 session, an `input_required` round trip
 * ({@link InputRounds}) for a 2026 request — and a plugin author writes `await ctx.elicit(…)`
 * once for both. A capability the client did not declare fails the same way in both eras for
 * the handler (a rejected promise it may catch); left uncaught it answers a 2026 request with
 * the spec's -32021 (MissingRequiredClientCapability, HTTP 400) and a 2025 one with a tool error.
 *
 * @module
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type CreateMessageResult,
  type ElicitRequestParams,
  MissingRequiredClientCapabilityError,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { Principal } from '../contract/principal.ts';
import type { InputOptions, RequestExtra, ToolContext } from '../contract/tool.ts';
import type { Era } from '../protocol/era.ts';
import type { DetachedCall } from './detachedCall.ts';
import { type InputRounds, questionDigest } from './inputRounds.ts';

/**
 * What the client declared: per request in 2026 (its envelope), at `initialize` in 2025 (read
 * from the session's server, `initialized`, only for a legacy request).
 */
function clientCapabilitiesOf(
  ctx: ServerContext,
  era: Era,
  initialized: () => ClientCapabilities | undefined,
): ClientCapabilities | undefined {
  if (era === 'legacy') return initialized();
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  return envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
}

/**
 * The capability a question needs, or undefined when the client declared it. Form elicitation is
 * what an empty `elicitation: {}` declares (the only mode before 2025-11-25).
 */
function missingCapability(
  capabilities: ClientCapabilities | undefined,
  kind: 'elicit' | 'sample' | 'roots',
  params?: ElicitRequestParams,
): { required: ClientCapabilities; message: string } | undefined {
  if (kind === 'sample') {
    if (capabilities?.sampling) return undefined;
    return {
      required: { sampling: {} },
      message: 'The client does not support sampling (it declared no sampling capability)',
    };
  }
  if (kind === 'roots') {
    if (capabilities?.roots) return undefined;
    return {
      required: { roots: {} },
      message: 'The client does not support roots (it declared no roots capability)',
    };
  }
  const elicitation = capabilities?.elicitation;
  if (!elicitation) {
    return {
      required: { elicitation: {} },
      message: 'The client does not support elicitation (it declared no elicitation capability)',
    };
  }
  const mode = params?.mode ?? 'form';
  const modes = elicitation as { form?: object; url?: object };
  if ((modes.form || modes.url) && !modes[mode]) {
    return {
      required: { elicitation: { [mode]: {} } },
      message: `The client does not support ${mode} elicitation`,
    };
  }
  return undefined;
}

/**
 * A request's context as handlers see it: the SDK's, with the session's era and what the client
 * declared, plus the SDK v1 names plugins were written against (`signal`, `sessionId`,
 * `requestId`, `_meta`, `authInfo`, `sendNotification`, `sendRequest`) so their code still runs.
 */
export function withV1Aliases(ctx: ServerContext, session: SessionFacts): RequestExtra {
  return new AliasedContext(ctx, session);
}

/** What the session adds to a request's context (see {@link withV1Aliases}). */
interface SessionFacts {
  era: Era;
  connectionId?: string;
  initialized: () => ClientCapabilities | undefined;
  principal: Principal;
  view: string | undefined;
}

/**
 * The request's fields, and the SDK v1 names for some of them, that every handler context
 * carries as own properties; each subclass sets all of them, in this order, in its constructor.
 * `signal` is left to the subclasses' getters (see {@link AliasedContext}).
 */
abstract class RequestFields {
  declare sessionId: RequestExtra['sessionId'];
  declare mcpReq: RequestExtra['mcpReq'];
  declare http: RequestExtra['http'];
  declare requestId: RequestExtra['requestId'];
  declare _meta: RequestExtra['_meta'];
  declare authInfo: RequestExtra['authInfo'];
  declare sendNotification: RequestExtra['sendNotification'];
  declare sendRequest: RequestExtra['sendRequest'];
  declare closeSSEStream: RequestExtra['closeSSEStream'];
  declare connectionId: RequestExtra['connectionId'];
  declare gateHandle: RequestExtra['gateHandle'];
  declare era: RequestExtra['era'];
  declare clientCapabilities: RequestExtra['clientCapabilities'];
  declare principal: RequestExtra['principal'];
  declare view: RequestExtra['view'];
}

/**
 * The context {@link withV1Aliases} makes: one fixed shape (adding properties to the SDK's
 * context object instead cost ~7% of a tool call's server CPU in hidden-class transitions), and
 * `signal` a getter on the prototype, read through because a request answered by its session
 * makes its signal only when asked. Not an object literal: a literal with a getter is built as a
 * dictionary — about 1 KB and a microsecond per request against 150 bytes and a few nanoseconds.
 */
class AliasedContext extends RequestFields implements RequestExtra {
  constructor(ctx: ServerContext, session: SessionFacts) {
    super();
    const { mcpReq, http } = ctx;
    this.sessionId = ctx.sessionId;
    this.mcpReq = mcpReq;
    this.http = http;
    this.requestId = mcpReq.id;
    this._meta = mcpReq._meta;
    this.authInfo = http?.authInfo;
    this.sendNotification = mcpReq.notify;
    this.sendRequest = mcpReq.send;
    this.closeSSEStream = http?.closeSSE;
    this.connectionId = session.connectionId;
    // Set by the tools/call handler when the call carries the gate's handle.
    this.gateHandle = undefined;
    this.era = session.era;
    this.clientCapabilities = clientCapabilitiesOf(ctx, session.era, session.initialized);
    this.principal = session.principal;
    this.view = session.view;
  }

  get signal(): RequestExtra['signal'] {
    return this.mcpReq.signal;
  }
}

export interface ToolContextOptions {
  /** Replays answers and collects new questions for a 2026 request. */
  rounds: InputRounds;
  /**
   * The call this handler runs as when it keeps running between requests (`keepsRunning`
   * tools, 2026 requests and tasks): its questions wait in the call instead of being replayed.
   */
  detached?: DetachedCall;
  /** Starts `work` as a task and returns the task result (tools/call only; tasks.ts). */
  asTask?: (work: (ctx: ToolContext) => Promise<unknown>) => Record<string, unknown>;
}

/**
 * A tool or prompt handler's context: the request's fields as own properties, and the helpers as
 * getters that hand out a function bound to this request — built only when a handler reaches for
 * one (most never do), and safe to destructure (`const { elicit } = ctx`). `signal` is a getter
 * too, so that a request whose signal is made on demand (directContext.ts) gets one only when
 * its handler asks.
 */
class HandlerContext extends RequestFields implements ToolContext {
  readonly inputMode: ToolContext['inputMode'];
  readonly #extra: RequestExtra;
  readonly #options: ToolContextOptions;

  constructor(extra: RequestExtra, options: ToolContextOptions) {
    super();
    this.sessionId = extra.sessionId;
    this.mcpReq = extra.mcpReq;
    this.http = extra.http;
    this.requestId = extra.requestId;
    this._meta = extra._meta;
    this.authInfo = extra.authInfo;
    this.sendNotification = extra.sendNotification;
    this.sendRequest = extra.sendRequest;
    this.closeSSEStream = extra.closeSSEStream;
    this.connectionId = extra.connectionId;
    this.gateHandle = extra.gateHandle;
    this.era = extra.era;
    this.clientCapabilities = extra.clientCapabilities;
    this.principal = extra.principal;
    this.view = extra.view;
    this.inputMode = extra.era === 'modern' && !options.detached ? 'replay' : 'live';
    this.#extra = extra;
    this.#options = options;
  }

  /** Read through, as the request's signal may be made only when asked for. */
  get signal(): RequestExtra['signal'] {
    return this.#extra.signal;
  }

  get reportProgress(): ToolContext['reportProgress'] {
    return async (progress, total, message) => {
      const progressToken = this.mcpReq._meta?.progressToken;
      if (progressToken === undefined) return;
      await this.mcpReq.notify({
        method: 'notifications/progress',
        params: { progressToken, progress, total, message },
      });
    };
  }

  /**
   * The SDK filters by era: `logging/setLevel` for a 2025 session, the request's own `_meta`
   * log level for 2026 (absent means no log notifications at all).
   */
  get log(): ToolContext['log'] {
    return (level, data, logger) => this.mcpReq.log(level, data, logger);
  }

  get sample(): ToolContext['sample'] {
    return (params, input) =>
      this.#ask(
        'sample',
        params,
        input,
        async () =>
          (await this.mcpReq.requestSampling(
            params,
            input?.signal && { signal: input.signal },
          )) as CreateMessageResult,
      );
  }

  get elicit(): ToolContext['elicit'] {
    return (params, input) =>
      this.#ask('elicit', params, input, () =>
        this.mcpReq.elicitInput(params, input?.signal && { signal: input.signal }),
      );
  }

  get runAsTask(): ToolContext['runAsTask'] {
    return (work) => {
      const asTask = this.#options.asTask;
      if (!asTask) throw new Error('only a tools/call handler can go on as a task');
      return asTask(work as (ctx: ToolContext) => Promise<unknown>) as never;
    };
  }

  get listRoots(): ToolContext['listRoots'] {
    return (input) =>
      this.#ask('roots', undefined, input, () =>
        this.mcpReq.send({ method: 'roots/list' }, input?.signal && { signal: input.signal }),
      );
  }

  /** One question: refused if the client cannot answer it, else a round (2026) or a request. */
  async #ask<R>(
    kind: 'elicit' | 'sample' | 'roots',
    params: unknown,
    input: InputOptions | undefined,
    live: () => Promise<R>,
  ): Promise<R> {
    this.#check(kind, kind === 'elicit' ? (params as ElicitRequestParams) : undefined);
    const detached = this.#options.detached;
    if (detached) {
      const digest = questionDigest(kind, params);
      return detached.ask(kind, params, digest, input?.key, input?.signal) as Promise<R>;
    }
    if (this.inputMode === 'live') return live();
    return this.#options.rounds.ask(
      kind as 'elicit',
      params as ElicitRequestParams,
      input?.key,
    ) as Promise<R>;
  }

  /**
   * Refuses a question the client cannot answer: -32021 for a 2026 request (the spec's error,
   * which the tool dispatcher passes through), a plain error (a tool error) for a 2025 session.
   */
  #check(kind: 'elicit' | 'sample' | 'roots', params?: ElicitRequestParams): void {
    const missing = missingCapability(this.clientCapabilities, kind, params);
    if (!missing) return;
    if (this.era === 'modern') {
      throw new MissingRequiredClientCapabilityError(
        { requiredCapabilities: missing.required },
        missing.message,
      );
    }
    throw new Error(missing.message);
  }
}

/**
 * The handler context of one request: the SDK's context (with the SDK v1 aliases) and the
 * helpers. Created fresh for each request; handlers written for `McpServer` keep finding
 * everything where they expect it.
 */
export function toToolContext(extra: RequestExtra, options: ToolContextOptions): ToolContext {
  return new HandlerContext(extra, options);
}
