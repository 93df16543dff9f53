/**
 * Cluster mode for mcp-proxy's plugins: a `load`, `unload` or `reload` on any replica (REST, CLI,
 * MCP tool, console — they all go through the operations' handlers and the
 * {@link PluginManager}) is written to the
 * cluster's plugin set and announced; every replica then reconciles itself with the set. A
 * replica that starts later adopts the set; one that lost Redis re-reads it when Redis is back,
 * after handing over the changes it made meanwhile. Each replica reports what it has and what
 * failed there, and {@link ClusterPluginSync.view} compares the reports with the set.
 *
 * @module
 */
import {
  type ClusterLink,
  createLogger,
  errorMessage,
  type Logger,
  SharedPluginSet,
} from '@mcpbox/framework';
import { type Caller, HANDLERS } from '../operations/handlers.ts';
import type { OperationName } from '../operations/table.ts';
import type { ClusterView } from '../proxy/clusterView.ts';
import type { ManagerEvent, PluginManager } from '../proxy/manager.ts';

/**
 * The operations of `operations/table.ts` that cluster mode carries to every replica (those
 * marked `replicated`). Sync does not replay calls: it keeps a shared plugin set with reload
 * generations, and each of these has its own rule in {@link ClusterPluginSync} (load what the
 * set has, unload what it lacks, reload on a newer generation), applied through the
 * operation's handler; `reload_policy` has a generation of its own (`policySync.ts`).
 */
export const RECONCILED_OPERATIONS: readonly OperationName[] = [
  'load',
  'unload',
  'reload',
  'reload_policy',
];

/** How often a replica refreshes its report (it expires after `REPORT_TTL_MS`). */
const REPORT_INTERVAL_MS = 10_000;

type Pending = { type: ManagerEvent['type']; plugin: string };

export class ClusterPluginSync {
  readonly #manager: PluginManager;
  /** How sync calls an operation: as the cluster, so the change is not shared again. */
  readonly #caller: Caller;
  readonly #link: ClusterLink;
  readonly #set: SharedPluginSet;
  readonly #logger: Logger;
  /** Reload generation applied here, per loaded plugin. */
  readonly #applied = new Map<string, number>();
  /** Plugins whose load or reload failed here: reported, and retried at the next change. */
  readonly #errors = new Map<string, string>();
  /** Local changes not yet in Redis (it was away): handed over when it is back. */
  #pending: Pending[] = [];
  /** Plugins changed here whose change is on its way to Redis: reconciling leaves them alone. */
  readonly #inFlight = new Set<string>();
  #queue: Promise<unknown> = Promise.resolve();
  #reconcileQueued = false;
  readonly #stops: Array<() => void> = [];
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(manager: PluginManager, link: ClusterLink, logger?: Logger) {
    this.#manager = manager;
    this.#caller = { manager, fromCluster: true };
    this.#link = link;
    this.#set = new SharedPluginSet(link.records, link.replicaId);
    this.#logger = logger ?? createLogger('cluster');
  }

  /**
   * Joins the cluster: seeds the set with this replica's plugins if it is the first, otherwise
   * adopts the set (loading what is missing here, unloading what is not shared).
   */
  async start(): Promise<void> {
    this.#stops.push(this.#manager.onEvent((event) => this.#onLocalChange(event)));
    this.#stops.push(
      await this.#set.onChange((change) => {
        if (change.replica !== this.#set.replicaId) this.#scheduleReconcile();
      }),
    );
    this.#stops.push(this.#link.onRestored(() => this.#onRestored()));
    const local = this.#localPlugins();
    if (await this.#set.initialize(local)) {
      this.#logger.info(`cluster: first replica; shared plugin set: ${local.join(', ') || 'none'}`);
      for (const plugin of local) this.#applied.set(plugin, 0);
    }
    await this.#serial(() => this.#reconcile());
    this.#timer = setInterval(() => void this.#serial(() => this.#report()), REPORT_INTERVAL_MS);
    this.#timer.unref();
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    for (const stop of this.#stops.splice(0)) stop();
    await this.#queue;
  }

  /** Resolves once every change seen so far is applied (tests, shutdown). */
  settled(): Promise<void> {
    return this.#serial(async () => undefined);
  }

  async view(): Promise<ClusterView> {
    const status = this.#link.status();
    const base = {
      cluster: this.#link.settings.name,
      replica: this.#set.replicaId,
      redis: status.connected ? ('connected' as const) : ('unreachable' as const),
    };
    if (!status.connected) {
      return { ...base, error: status.error, shared: [], replicas: [], diverged: true };
    }
    const [shared, reports] = await Promise.all([this.#set.read(), this.#set.reports()]);
    const replicas = reports.map((report) => ({
      ...report,
      missing: shared.plugins.filter((p) => !report.plugins.includes(p)),
      extra: report.plugins.filter((p) => !shared.plugins.includes(p)),
    }));
    const diverged = replicas.some(
      (r) => r.missing.length > 0 || r.extra.length > 0 || Object.keys(r.errors).length > 0,
    );
    return { ...base, shared: shared.plugins, replicas, diverged };
  }

  #localPlugins(): string[] {
    return this.#manager.registry
      .plugins()
      .filter((p) => !p.internal)
      .map((p) => p.name)
      .sort();
  }

  #serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  #scheduleReconcile(): void {
    if (this.#reconcileQueued || this.#closed) return;
    this.#reconcileQueued = true;
    void this.#serial(async () => {
      this.#reconcileQueued = false;
      await this.#reconcile();
    });
  }

  /** A change made on this replica: into the set, announced (or kept until Redis is back). */
  #onLocalChange(event: ManagerEvent): void {
    if (event.fromCluster) return;
    this.#errors.delete(event.plugin);
    this.#inFlight.add(event.plugin);
    void this.#serial(async () => {
      try {
        await this.#share(event);
      } catch (error) {
        this.#pending.push({ type: event.type, plugin: event.plugin });
        this.#logger.warn(
          `cluster: ${event.type} of '${event.plugin}' applied on this replica only, not shared yet (${errorMessage(error)}); it is shared when Redis is back`,
        );
      } finally {
        this.#inFlight.delete(event.plugin);
      }
      await this.#report().catch(() => undefined);
    });
  }

  async #share({ type, plugin }: Pending): Promise<void> {
    if (type === 'loaded') this.#applied.set(plugin, await this.#set.added(plugin));
    else if (type === 'unloaded') {
      await this.#set.removed(plugin);
      this.#applied.delete(plugin);
    } else this.#applied.set(plugin, await this.#set.reloaded(plugin));
  }

  #onRestored(): void {
    void this.#serial(async () => {
      const pending = this.#pending;
      this.#pending = [];
      // Redis may have come back empty: re-seed the set from what this replica serves first.
      await this.#set.initialize(this.#localPlugins()).catch(() => false);
      for (const change of pending) {
        try {
          await this.#share(change);
        } catch (error) {
          this.#pending.push(change);
          this.#logger.warn(
            `cluster: could not share ${change.type} of '${change.plugin}': ${errorMessage(error)}`,
          );
        }
      }
      await this.#reconcile();
    });
  }

  /** Makes this replica's plugins match the shared set; failures are kept and reported. */
  async #reconcile(): Promise<void> {
    if (this.#closed) return;
    let shared: Awaited<ReturnType<SharedPluginSet['read']>>;
    try {
      shared = await this.#set.read();
    } catch (error) {
      this.#logger.debug(`cluster: cannot read the plugin set: ${errorMessage(error)}`);
      return;
    }
    const local = new Set(this.#localPlugins());
    const manager = this.#manager;
    for (const plugin of shared.plugins) {
      if (this.#inFlight.has(plugin)) continue;
      const generation = shared.reloads[plugin] ?? 0;
      if (!local.has(plugin)) {
        const result = await HANDLERS.load.run(this.#caller, { plugin });
        this.#outcome(plugin, 'load', result.ok || manager.registry.isLoaded(plugin), result.error);
        if (manager.registry.isLoaded(plugin)) this.#applied.set(plugin, generation);
      } else if (!this.#applied.has(plugin)) {
        this.#applied.set(plugin, generation);
      } else if (generation > (this.#applied.get(plugin) ?? 0)) {
        const result = await HANDLERS.reload.run(this.#caller, { plugin });
        this.#applied.set(plugin, generation);
        this.#outcome(plugin, 'reload', result.ok, result.error);
      }
    }
    for (const plugin of local) {
      if (shared.plugins.includes(plugin) || this.#inFlight.has(plugin)) continue;
      const result = await HANDLERS.unload.run(this.#caller, { plugin });
      this.#applied.delete(plugin);
      this.#outcome(plugin, 'unload', result.ok, result.error);
    }
    for (const plugin of this.#errors.keys()) {
      if (!shared.plugins.includes(plugin)) this.#errors.delete(plugin);
    }
    await this.#report().catch(() => undefined);
  }

  #outcome(plugin: string, what: string, ok: boolean, error: string | undefined): void {
    if (ok) {
      if (this.#errors.delete(plugin)) this.#logger.info(`cluster: '${plugin}' now in line here`);
      return;
    }
    const message = error ?? `${what} failed`;
    if (this.#errors.get(plugin) !== message) {
      this.#logger.error(
        `cluster: the shared plugin set has '${plugin}' but its ${what} failed on this replica: ${message}`,
      );
    }
    this.#errors.set(plugin, message);
  }

  async #report(): Promise<void> {
    if (this.#closed) return;
    await this.#set.report({
      plugins: this.#localPlugins(),
      errors: Object.fromEntries(this.#errors),
    });
  }
}
