/**
 * `UpstreamConnection`: one named upstream MCP server, connected on first use and restarted on
 * the next use after it died. Requests pass through unchanged (results are not re-validated or
 * trimmed: the caller's own client does that), with progress, cancellation and timeouts.
 *
 * Either protocol era: the first connect negotiates (MCP 2026-07-28 through `server/discover`, or
 * the 2025 `initialize`), and the verdict is kept (`verdicts.ts`) so a restart connects without
 * probing. What an upstream asks of our caller in the middle of a call — elicitation or sampling,
 * as `input_required` rounds (2026) or as real requests (2025) — goes to that caller's `elicit` /
 * `sample` ({@link CallOptions}), and the answer back upstream. List changes reach
 * `onListChanged` in both eras (a `subscriptions/listen` stream on a 2026 connection).
 *
 * Used by mcp-proxy to mirror another server as a plugin, and by ipybox's tool server to run
 * upstream tools for kernel code.
 *
 * @module
 */
import type {
  CallToolResult,
  Client,
  ClientRequest,
  GetPromptRequest,
  GetPromptResult,
  Implementation,
  McpSubscription,
  Progress,
  Prompt,
  ProtocolEra,
  ReadResourceRequest,
  ReadResourceResult,
  Resource,
  ResourceTemplateType,
  ServerCapabilities,
  StandardSchemaV1,
  StreamableHTTPClientTransport,
  Tool,
} from '@modelcontextprotocol/client';
import { errorMessage } from '../errors.ts';
import { createLogger, type Logger } from '../logging/index.ts';
import { traceUpstreamRequest } from '../telemetry/spans.ts';
import { type ConnectedUpstream, connectUpstream, type TransportKind } from './connect.ts';
import { DirectRequests } from './directRequests.ts';
import { UpstreamError } from './errors.ts';
import { type EnvMap, expandUpstreamParams } from './expand.ts';
import { describeUpstream, type UpstreamParams } from './params.ts';
import { type Askers, CallerQuestions, MAX_INPUT_ROUNDS } from './questions.ts';
import { NO_SDK_TIMEOUT, ProgressRouter, RequestDeadline } from './requestControl.ts';
import { clientSdk, isProtocolError, isSdkError } from './sdk.ts';
import { VerdictCache, verdictKey } from './verdicts.ts';

export type ListKind = 'tools' | 'resources' | 'prompts';

export interface UpstreamConnectionOptions {
  /** Where `${VAR}` placeholders are looked up, at each connect. Default `process.env`. */
  env?: EnvMap;
  /** Spawn/handshake, era negotiation and `initialize`, in ms. Default 30 000. */
  connectTimeoutMs?: number;
  /** Default per-request timeout in ms (progress notifications restart it). Default 60 000. */
  requestTimeoutMs?: number;
  /** Receives the upstream's stderr lines, its log notifications and our own notes. */
  logger?: Logger;
  /**
   * Called when the upstream announces that its tools, resources or prompts changed (a 2025
   * `list_changed` notification, or one on the 2026 `subscriptions/listen` stream).
   */
  onListChanged?: (kind: ListKind) => void;
  /** How we introduce ourselves to the upstream. Default `{ name: 'mcpbox', version: '0.1.0' }`. */
  clientInfo?: Implementation;
  /** Seconds a stdio upstream's process group gets between SIGTERM and SIGKILL. Default 2. */
  killGraceSeconds?: number;
  /**
   * Where era verdicts are kept; share one between connections to the same upstreams (a pool, a
   * proxy's reloads) so that a new connection object does not probe again. Default: this
   * connection's own.
   */
  verdicts?: VerdictCache;
}

export interface CallOptions extends Askers {
  /** Cancels the call: the upstream is told (`notifications/cancelled`, or the stream closed). */
  signal?: AbortSignal;
  /** Asks the upstream for progress (`_meta.progressToken`) and receives each notification. */
  onprogress?: (progress: Progress) => void;
  /** Overrides `requestTimeoutMs` for this call. */
  timeout?: number;
}

/** Stderr, in the process-wide format, for callers that pass no logger. */
const defaultLogger = createLogger('upstream');

/**
 * A result schema that hands the upstream's result on as it is — every field, including ones
 * this SDK version does not know — without copying it (a zod passthrough object rebuilt each
 * result on every call). The SDK has checked the JSON-RPC envelope and that the result is an
 * object; `problem` checks what the caller itself relies on.
 */
function asSent(
  problem: (result: Record<string, unknown>) => string | undefined = () => undefined,
): StandardSchemaV1<unknown, Record<string, unknown>> {
  return {
    '~standard': {
      version: 1,
      vendor: 'mcpbox',
      validate(value) {
        const isObject = value !== null && typeof value === 'object' && !Array.isArray(value);
        const why = isObject ? problem(value as Record<string, unknown>) : 'expected an object';
        return why === undefined
          ? { value: value as Record<string, unknown> }
          : { issues: [{ message: why }] };
      },
    },
  };
}

const LooseResult = asSent();
// Only what pagination needs is checked.
const LoosePage = asSent((page) =>
  page.nextCursor === undefined || typeof page.nextCursor === 'string'
    ? undefined
    : 'nextCursor: expected a string',
);
type ResultSchema = typeof LooseResult;

const MAX_PAGES = 1000;
/** The methods whose result may be `input_required` (2026-07-28, basic/patterns/mrtr). */
const INTERACTIVE = new Set(['tools/call', 'prompts/get', 'resources/read']);
/** `_meta` keys that describe the upstream's connection, not the content: not passed on. */
const PROTOCOL_META_PREFIX = 'io.modelcontextprotocol/';

export class UpstreamConnection {
  readonly name: string;
  /** The params as written, placeholders intact. */
  readonly params: UpstreamParams;
  readonly #options: Required<Omit<UpstreamConnectionOptions, 'onListChanged' | 'verdicts'>> &
    Pick<UpstreamConnectionOptions, 'onListChanged'>;
  readonly #verdicts: VerdictCache;
  #live: ConnectedUpstream | undefined;
  /** The verdict cache key of the live connection's params. */
  #liveKey: string | undefined;
  #connecting: Promise<ConnectedUpstream> | undefined;
  #closing: Promise<void> | undefined;
  #starts = 0;
  /** Clients whose transport closed; a closed client is never handed out again. */
  readonly #dead = new WeakSet<Client>();
  readonly #progress: ProgressRouter;
  readonly #questions: CallerQuestions;

  constructor(name: string, params: UpstreamParams, options: UpstreamConnectionOptions = {}) {
    this.name = name;
    this.params = params;
    this.#progress = new ProgressRouter(name);
    this.#questions = new CallerQuestions(name);
    this.#verdicts = options.verdicts ?? new VerdictCache();
    this.#options = {
      env: options.env ?? process.env,
      connectTimeoutMs: options.connectTimeoutMs ?? 30_000,
      requestTimeoutMs: options.requestTimeoutMs ?? 60_000,
      logger: options.logger ?? defaultLogger,
      onListChanged: options.onListChanged,
      clientInfo: options.clientInfo ?? { name: 'mcpbox', version: '0.1.0' },
      killGraceSeconds: options.killGraceSeconds ?? 2,
    };
  }

  /** True while a live connection exists (false before first use, after death and close). */
  get connected(): boolean {
    return this.#live !== undefined;
  }

  /** How many times the upstream has been started (or connected to); restarts count too. */
  get starts(): number {
    return this.#starts;
  }

  /** pid of the spawned process (the process-group guard on Linux) while connected over stdio. */
  get pid(): number | undefined {
    return this.#live?.pid;
  }

  get transportKind(): TransportKind | undefined {
    return this.#live?.kind;
  }

  /** `modern` (2026-07-28) or `legacy` (2025) while connected. */
  get protocolEra(): ProtocolEra | undefined {
    return this.#live?.client.getProtocolEra();
  }

  /** The negotiated protocol version while connected, e.g. `2026-07-28` or `2025-11-25`. */
  get protocolVersion(): string | undefined {
    return this.#live?.client.getNegotiatedProtocolVersion();
  }

  get closed(): boolean {
    return this.#closing !== undefined;
  }

  /** The connected SDK client, connecting (or reconnecting after a crash) first if needed. */
  async client(): Promise<Client> {
    return (await this.#ensure()).client;
  }

  /** What the upstream announced at connect (`initialize` or `server/discover`); connects first. */
  async serverCapabilities(): Promise<ServerCapabilities> {
    return (await this.client()).getServerCapabilities() ?? {};
  }

  async callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    options: CallOptions = {},
  ): Promise<CallToolResult> {
    const params = args === undefined ? { name } : { name, arguments: args };
    return this.#request('tools/call', params, LooseResult, options) as Promise<CallToolResult>;
  }

  /** Every tool, as the upstream sent it: unknown fields and JSON Schemas untouched. */
  async listTools(): Promise<Tool[]> {
    return this.#listAll('tools', 'tools/list', 'tools') as Promise<Tool[]>;
  }

  async listResources(): Promise<Resource[]> {
    return this.#listAll('resources', 'resources/list', 'resources') as Promise<Resource[]>;
  }

  async listResourceTemplates(): Promise<ResourceTemplateType[]> {
    return this.#listAll('resources', 'resources/templates/list', 'resourceTemplates') as Promise<
      ResourceTemplateType[]
    >;
  }

  async listPrompts(): Promise<Prompt[]> {
    return this.#listAll('prompts', 'prompts/list', 'prompts') as Promise<Prompt[]>;
  }

  async readResource(
    params: ReadResourceRequest['params'],
    options: CallOptions = {},
  ): Promise<ReadResourceResult> {
    return this.#request(
      'resources/read',
      params,
      LooseResult,
      options,
    ) as Promise<ReadResourceResult>;
  }

  async getPrompt(
    params: GetPromptRequest['params'],
    options: CallOptions = {},
  ): Promise<GetPromptResult> {
    return this.#request('prompts/get', params, LooseResult, options) as Promise<GetPromptResult>;
  }

  /** Closes the connection (ending a stdio upstream's whole process group). Idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.#shutDown();
    return this.#closing;
  }

  async #shutDown(): Promise<void> {
    const live = this.#live ?? (await this.#connecting?.catch(() => undefined));
    this.#live = undefined;
    if (live) await this.#release(live);
  }

  async #release(live: ConnectedUpstream): Promise<void> {
    if (live.kind === 'streamableHttp') {
      // Tell the server the session is over (DELETE); a server that is gone just fails this.
      await (live.transport as StreamableHTTPClientTransport)
        .terminateSession()
        .catch(() => undefined);
    }
    await live.client.close().catch(() => undefined);
  }

  #ensure(): Promise<ConnectedUpstream> {
    if (this.#closing) {
      return Promise.reject(new UpstreamError('CLOSED', `upstream '${this.name}' was closed`));
    }
    if (this.#live) return Promise.resolve(this.#live);
    this.#connecting ??= this.#connect().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  async #connect(): Promise<ConnectedUpstream> {
    const { logger } = this.#options;
    const expanded = expandUpstreamParams(this.name, this.params, this.#options.env);
    const key = verdictKey(this.name, expanded);
    this.#starts += 1;
    const verb = this.#starts === 1 ? 'starting' : 'restarting';
    logger.info(`${verb} upstream '${this.name}': ${describeUpstream(this.params)}`);
    let live: ConnectedUpstream;
    try {
      live = await connectUpstream({
        name: this.name,
        written: this.params,
        expanded,
        timeoutMs: this.#options.connectTimeoutMs,
        logger,
        makeClient: () => this.#makeClient(),
        graceSteps: Math.round(this.#options.killGraceSeconds * 10),
        cached: this.#verdicts.get(key),
      });
    } catch (error) {
      this.#verdicts.delete(key);
      throw error;
    }
    this.#verdicts.set(key, live.verdict);
    if (this.#closing) {
      // close() was called while we were connecting; it waits for us but finds nothing to end.
      await this.#release(live);
      throw new UpstreamError('CLOSED', `upstream '${this.name}' was closed`);
    }
    if (this.#dead.has(live.client)) {
      throw new UpstreamError(
        'CONNECT_FAILED',
        `upstream '${this.name}' exited right after connecting`,
      );
    }
    this.#progress.attach(live.transport);
    if (live.kind === 'stdio' && live.client.getProtocolEra() === 'legacy') {
      live.direct = new DirectRequests(live.transport, this.name);
      live.direct.attach();
    }
    this.#live = live;
    this.#liveKey = key;
    logger.debug(
      `upstream '${this.name}' speaks ${live.client.getNegotiatedProtocolVersion()} over ${live.kind}`,
    );
    if (live.client.getProtocolEra() === 'modern') await this.#listen(live);
    return live;
  }

  /**
   * On a 2026-07-28 connection change notifications come only on a `subscriptions/listen`
   * stream: open one for the lists the upstream says can change. A stream the upstream drops
   * while the connection lives is opened again (the SDK never re-listens); if that fails, the
   * upstream is gone, and the connection is dropped so the next call reconnects and re-listens.
   */
  async #listen(live: ConnectedUpstream, again = false): Promise<void> {
    const { logger } = this.#options;
    const capabilities = live.client.getServerCapabilities() ?? {};
    const filter = {
      ...(capabilities.tools?.listChanged && { toolsListChanged: true }),
      ...(capabilities.resources?.listChanged && { resourcesListChanged: true }),
      ...(capabilities.prompts?.listChanged && { promptsListChanged: true }),
    };
    if (Object.keys(filter).length === 0) return;
    let subscription: McpSubscription;
    try {
      subscription = await live.client.listen(filter, { timeout: this.#options.connectTimeoutMs });
    } catch (error) {
      if (!again) {
        logger.warn(
          `upstream '${this.name}': cannot subscribe to its list changes (${errorMessage(error)}); changes will not be noticed`,
        );
      } else if (this.#live === live) {
        logger.warn(
          `upstream '${this.name}' dropped its change stream and cannot be reached (${errorMessage(error)}); it will be reconnected on the next call`,
        );
        this.#live = undefined;
        void this.#release(live);
      }
      return;
    }
    void subscription.closed.then((reason) => {
      if (reason !== 'remote' || this.#live !== live || this.#closing) return;
      logger.debug(`upstream '${this.name}' dropped its change stream; listening again`);
      void this.#listen(live, true);
    });
  }

  #makeClient(): Client {
    const { logger, onListChanged } = this.#options;
    const client = new (clientSdk().sdk.Client)(this.#options.clientInfo, {
      // What our callers can do for an upstream: their own `ctx.elicit` / `ctx.sample`, which
      // check the downstream client's capabilities at call time.
      capabilities: { elicitation: { form: {}, url: {} }, sampling: {} },
      // `input_required` rounds are driven per call (#request), where the caller is known.
      inputRequired: { autoFulfill: false },
    });
    client.onclose = () => {
      this.#dead.add(client);
      if (this.#live?.client !== client) return;
      this.#live = undefined;
      if (!this.#closing) {
        logger.warn(`upstream '${this.name}' stopped; it will be restarted on the next call`);
      }
    };
    client.onerror = (error) => logger.debug(`upstream '${this.name}': ${errorMessage(error)}`);
    // A 2025 upstream asks by sending requests; they carry nothing naming the call they belong to.
    client.setRequestHandler('elicitation/create', ({ params }) =>
      this.#questions.answerRequest('elicit', params),
    );
    client.setRequestHandler('sampling/createMessage', ({ params }) =>
      this.#questions.answerRequest('sample', params),
    );
    const changed = (kind: ListKind) => async () => onListChanged?.(kind);
    client.setNotificationHandler('notifications/tools/list_changed', changed('tools'));
    client.setNotificationHandler('notifications/resources/list_changed', changed('resources'));
    client.setNotificationHandler('notifications/prompts/list_changed', changed('prompts'));
    client.setNotificationHandler('notifications/message', async ({ params }) => {
      const data = typeof params.data === 'string' ? params.data : JSON.stringify(params.data);
      logger.debug(`[upstream ${this.name}] ${params.level}: ${data}`);
    });
    return client;
  }

  /** One request, in a client span whose trace context travels on in `_meta` when tracing. */
  #request(
    method: string,
    params: Record<string, unknown>,
    schema: ResultSchema,
    options: CallOptions,
  ): Promise<unknown> {
    return traceUpstreamRequest(this.name, method, params, (sent) =>
      this.#send(method, sent, schema, options),
    );
  }

  async #send(
    method: string,
    params: Record<string, unknown>,
    schema: ResultSchema,
    options: CallOptions,
  ): Promise<unknown> {
    const live = await this.#ensure();
    const timeout = options.timeout ?? this.#options.requestTimeoutMs;
    const deadline = new RequestDeadline(timeout, options.signal);
    const { onprogress } = options;
    const route = onprogress
      ? this.#progress.register((progress) => {
          deadline.touch();
          onprogress(progress);
        })
      : undefined;
    const withToken = route
      ? { ...params, _meta: { ...(params._meta as object), progressToken: route.token } }
      : params;
    const call = this.#questions.begin(options, deadline);
    try {
      let leg: Record<string, unknown> = withToken;
      for (let round = 0; ; round++) {
        const result = live.direct
          ? await live.direct.request(method, leg, schema, deadline)
          : ((await live.client.request(
              // Typed as any ClientRequest: the standard methods, built by the callers above.
              { method, params: leg } as ClientRequest,
              schema,
              // Aborting the signal makes the SDK tell the upstream (cancel notification /
              // stream close).
              {
                signal: deadline.signal,
                timeout: NO_SDK_TIMEOUT,
                allowInputRequired: INTERACTIVE.has(method),
              },
            )) as Record<string, unknown>);
        if (result.resultType !== 'input_required') return withoutProtocolMeta(result);
        if (round >= MAX_INPUT_ROUNDS) {
          throw new UpstreamError(
            'PROTOCOL_ERROR',
            `upstream '${this.name}' still asked for input after ${MAX_INPUT_ROUNDS} rounds of ${method}`,
          );
        }
        leg = await this.#questions.nextRound(call, withToken, result);
        deadline.touch();
      }
    } catch (error) {
      if (call.failure) throw call.failure.error;
      throw this.#explainRequestError(error, live, method, deadline, timeout);
    } finally {
      this.#questions.end(call);
      deadline.dispose();
      route?.release();
    }
  }

  async #listAll(capability: ListKind, method: string, key: string): Promise<unknown[]> {
    // Asking a server for a list it does not offer only earns a "method not found".
    if (!(await this.serverCapabilities())[capability]) return [];
    const items: unknown[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let pages = 0; pages < MAX_PAGES; pages++) {
      const result = (await this.#request(
        method,
        cursor === undefined ? {} : { cursor },
        LoosePage,
        {},
      )) as Record<string, unknown> & { nextCursor?: string };
      const found = result[key];
      if (!Array.isArray(found)) {
        throw new UpstreamError(
          'PROTOCOL_ERROR',
          `upstream '${this.name}' answered ${method} without a '${key}' array`,
        );
      }
      items.push(...found);
      cursor = result.nextCursor;
      // A server that repeats a cursor would otherwise keep us here forever.
      if (cursor === undefined || seen.has(cursor)) break;
      seen.add(cursor);
    }
    return items;
  }

  #explainRequestError(
    error: unknown,
    live: ConnectedUpstream,
    method: string,
    deadline: RequestDeadline,
    timeout: number,
  ): unknown {
    if (error instanceof UpstreamError) return error;
    if (deadline.timedOut) {
      return new UpstreamError(
        'REQUEST_TIMEOUT',
        `upstream '${this.name}' did not answer ${method} within ${timeout} ms`,
        { cause: error },
      );
    }
    if (deadline.aborted) {
      return new UpstreamError('CANCELLED', `${method} on upstream '${this.name}' was cancelled`, {
        cause: error,
      });
    }
    if (isSdkError(error, 'ConnectionClosed')) {
      return new UpstreamError(
        'CONNECTION_CLOSED',
        `upstream '${this.name}' is not running (it stopped during ${method}); it will be restarted on the next call`,
        { cause: error },
      );
    }
    // An upstream's JSON-RPC error (unknown tool, invalid params …) is its answer: pass it on —
    // unless it says our protocol version is not (or no longer) spoken there: the server behind
    // the connection changed era, and only a new connect, negotiating afresh, can reach it.
    const wrongEra = isProtocolError(error, 'UnsupportedProtocolVersion');
    if (isProtocolError(error) && !wrongEra) return error;
    if (wrongEra && this.#liveKey !== undefined) this.#verdicts.delete(this.#liveKey);
    // Anything else is the transport failing (an HTTP server gone, a session it forgot, an
    // answer of the wrong era): drop this connection so the next call starts a fresh one.
    if (this.#live === live) {
      this.#live = undefined;
      void this.#release(live);
    }
    return new UpstreamError(
      'CONNECTION_CLOSED',
      `upstream '${this.name}' failed during ${method} (${errorMessage(error)}); it will be reconnected on the next call`,
      { cause: error },
    );
  }
}

/**
 * A result without the `_meta` keys that describe the upstream's connection (its `serverInfo`
 * on 2026 results): our own server stamps its own. Everything else stays as sent.
 */
function withoutProtocolMeta(result: Record<string, unknown>): Record<string, unknown> {
  const meta = result._meta as Record<string, unknown> | undefined;
  if (!meta || !Object.keys(meta).some((key) => key.startsWith(PROTOCOL_META_PREFIX))) {
    return result;
  }
  const kept = Object.fromEntries(
    Object.entries(meta).filter(([key]) => !key.startsWith(PROTOCOL_META_PREFIX)),
  );
  const { _meta: _dropped, ...rest } = result;
  return Object.keys(kept).length > 0 ? { ...rest, _meta: kept } : rest;
}
