/**
 * The life of one upstream connection, apart from the requests sent over it: connected on first
 * use, restarted on the next use after it died or its transport failed, closed once. Each
 * connect reuses the era verdict of the last one (`verdicts.ts`) and is made with a fresh SDK
 * client (`upstreamClient.ts`); a 2026-07-28 connection also keeps a `subscriptions/listen`
 * stream open for list changes. {@link UpstreamConnection} owns one of these.
 *
 * @module
 */
import type {
  Client,
  McpSubscription,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { errorMessage } from '../errors.ts';
import { type ConnectedUpstream, connectUpstream } from './connect.ts';
import type { ResolvedOptions } from './connectionOptions.ts';
import { DirectRequests } from './directRequests.ts';
import { UpstreamError } from './errors.ts';
import { expandUpstreamParams } from './expand.ts';
import { describeUpstream, isStdioParams, type UpstreamParams } from './params.ts';
import type { CallerQuestions } from './questions.ts';
import type { ProgressRouter } from './requestControl.ts';
import { listChangeFilter, makeUpstreamClient, type UpstreamClient } from './upstreamClient.ts';
import { type VerdictCache, verdictKey } from './verdicts.ts';

export interface LifecycleSpec {
  name: string;
  /** The params as written, placeholders intact (expanded at each connect). */
  params: UpstreamParams;
  options: ResolvedOptions;
  verdicts: VerdictCache;
  /** Attached to each new transport, so progress reaches the call that asked for it. */
  progress: ProgressRouter;
  /** Where each new client sends the upstream's 2025 questions. */
  questions: CallerQuestions;
}

export class UpstreamLifecycle {
  readonly #spec: LifecycleSpec;
  #live: ConnectedUpstream | undefined;
  /** The verdict cache key of the live connection's params. */
  #liveKey: string | undefined;
  #connecting: Promise<ConnectedUpstream> | undefined;
  #closing: Promise<void> | undefined;
  #starts = 0;
  /** Clients whose transport closed; a closed client is never handed out again. */
  readonly #dead = new WeakSet<Client>();

  constructor(spec: LifecycleSpec) {
    this.#spec = spec;
  }

  /** The live connection, if any (none before first use, after death and close). */
  get live(): ConnectedUpstream | undefined {
    return this.#live;
  }

  /** How many times the upstream has been started (or connected to); restarts count too. */
  get starts(): number {
    return this.#starts;
  }

  get closed(): boolean {
    return this.#closing !== undefined;
  }

  /** The live connection when there is one and no close has begun: what `ensure` gives at once. */
  get ready(): ConnectedUpstream | undefined {
    return this.#closing ? undefined : this.#live;
  }

  /** The live connection, connecting (or reconnecting after a crash) first if needed. */
  ensure(): Promise<ConnectedUpstream> {
    if (this.#closing) {
      return Promise.reject(
        new UpstreamError('CLOSED', `upstream '${this.#spec.name}' was closed`),
      );
    }
    if (this.#live) return Promise.resolve(this.#live);
    this.#connecting ??= this.#connect().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  /** Closes the connection (ending a stdio upstream's whole process group). Idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.#shutDown();
    return this.#closing;
  }

  /**
   * A request on `live` failed in its transport (an HTTP server gone, a session it forgot, an
   * answer of the wrong era): drop the connection so the next call starts a fresh one. When the
   * upstream no longer speaks our protocol version, its verdict is forgotten too, so that the
   * next connect negotiates afresh.
   */
  broken(live: ConnectedUpstream, wrongEra: boolean): void {
    if (wrongEra && this.#liveKey !== undefined) this.#spec.verdicts.delete(this.#liveKey);
    this.#drop(live);
  }

  #drop(live: ConnectedUpstream): void {
    if (this.#live !== live) return;
    this.#live = undefined;
    void this.#release(live);
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

  async #connect(): Promise<ConnectedUpstream> {
    const { name, params, options, verdicts } = this.#spec;
    const { logger } = options;
    const expanded = withHeaders(expandUpstreamParams(name, params, options.env), options.headers);
    const key = verdictKey(name, expanded);
    this.#starts += 1;
    const verb = this.#starts === 1 ? 'starting' : 'restarting';
    logger.info(`${verb} upstream '${name}': ${describeUpstream(params)}`);
    let live: ConnectedUpstream;
    try {
      live = await connectUpstream({
        name,
        written: params,
        expanded,
        timeoutMs: options.connectTimeoutMs,
        logger,
        makeClient: () => this.#makeClient(),
        graceSteps: Math.round(options.killGraceSeconds * 10),
        cached: verdicts.get(key),
      });
    } catch (error) {
      verdicts.delete(key);
      throw error;
    }
    verdicts.set(key, live.verdict);
    if (this.#closing) {
      // close() was called while we were connecting; it waits for us but finds nothing to end.
      await this.#release(live);
      throw new UpstreamError('CLOSED', `upstream '${name}' was closed`);
    }
    if (this.#dead.has(live.client)) {
      throw new UpstreamError('CONNECT_FAILED', `upstream '${name}' exited right after connecting`);
    }
    this.#spec.progress.attach(live.transport);
    if (live.kind === 'stdio') {
      live.direct = new DirectRequests(live.transport, live.client, name);
      live.direct.attach();
    }
    this.#live = live;
    this.#liveKey = key;
    logger.debug(
      `upstream '${name}' speaks ${live.client.getNegotiatedProtocolVersion()} over ${live.kind}`,
    );
    if (live.client.getProtocolEra() === 'modern') await this.#listen(live);
    return live;
  }

  #makeClient(): UpstreamClient {
    const { name, options, questions } = this.#spec;
    return makeUpstreamClient({
      name,
      options,
      questions,
      onClosed: (client) => {
        this.#dead.add(client);
        if (this.#live?.client !== client) return;
        this.#live = undefined;
        if (!this.#closing) {
          options.logger.warn(`upstream '${name}' stopped; it will be restarted on the next call`);
        }
      },
    });
  }

  /**
   * On a 2026-07-28 connection change notifications come only on a `subscriptions/listen`
   * stream: open one for the lists the upstream says can change. A stream the upstream drops
   * while the connection lives is opened again (the SDK never re-listens); if that fails, the
   * upstream is gone, and the connection is dropped so the next call reconnects and re-listens.
   */
  async #listen(live: ConnectedUpstream, again = false): Promise<void> {
    const { name, options } = this.#spec;
    const { logger } = options;
    const filter = listChangeFilter(live.client.getServerCapabilities() ?? {});
    if (Object.keys(filter).length === 0) return;
    let subscription: McpSubscription;
    try {
      subscription = await live.client.listen(filter, { timeout: options.connectTimeoutMs });
    } catch (error) {
      if (!again) {
        logger.warn(
          `upstream '${name}': cannot subscribe to its list changes (${errorMessage(error)}); changes will not be noticed`,
        );
      } else if (this.#live === live) {
        logger.warn(
          `upstream '${name}' dropped its change stream and cannot be reached (${errorMessage(error)}); it will be reconnected on the next call`,
        );
        this.#drop(live);
      }
      return;
    }
    void subscription.closed.then((reason) => {
      if (reason !== 'remote' || this.#live !== live || this.#closing) return;
      logger.debug(`upstream '${name}' dropped its change stream; listening again`);
      void this.#listen(live, true);
    });
  }
}

/** The resolved headers over the params' own (an HTTP upstream's; stdio has none). */
function withHeaders(
  expanded: UpstreamParams,
  headers: Readonly<Record<string, string>>,
): UpstreamParams {
  if (isStdioParams(expanded) || Object.keys(headers).length === 0) return expanded;
  return { ...expanded, headers: { ...expanded.headers, ...headers } };
}
