/**
 * Cluster mode for `reload_policy`: a reload on any replica (REST, CLI, tool, console, SIGHUP)
 * reaches every replica, and each re-reads its own config file.
 *
 * Why each its own file, and not one shared copy of the settings (as the plugin set is shared):
 * the file is what every replica starts from, and the replicas of one deployment are given the
 * same file. A copy kept in Redis would outlive a redeploy with a new file and silently replace
 * it on every replica that starts later — for who may call what, the file must stay the truth.
 * What is shared is the fact that a reload happened: a generation number (`policy:reloads`) and
 * an announcement. A replica that missed the announcement (Redis was away) catches up when Redis
 * is back; one that starts later has just read its file and adopts the generation as is. Each
 * replica logs what its reload did; one whose file fails keeps its old policy and logs why.
 *
 * @module
 */
import {
  type ClusterLink,
  createLogger,
  errorMessage,
  type Logger,
  type RecordStore,
} from '@mcpbox/framework';
import { HANDLERS } from '../operations/handlers.ts';
import type { PluginManager } from '../proxy/manager.ts';

const GENERATION = 'policy:reloads';
const CHANNEL = 'policy';

const generationOf = (text: string | undefined) => Number.parseInt(text ?? '0', 10) || 0;

export class ClusterPolicySync {
  readonly #manager: PluginManager;
  readonly #link: ClusterLink;
  readonly #records: RecordStore;
  readonly #logger: Logger;
  /** The reload generation this replica's views and policy are at. */
  #applied = 0;
  #queue: Promise<unknown> = Promise.resolve();
  readonly #stops: Array<() => void> = [];

  constructor(manager: PluginManager, link: ClusterLink, logger?: Logger) {
    this.#manager = manager;
    this.#link = link;
    this.#records = link.records;
    this.#logger = logger ?? createLogger('cluster');
  }

  async start(): Promise<void> {
    const admin = this.#manager.access;
    if (admin === undefined) return;
    // Started just now, from the file: whatever reloads happened before are in it already.
    this.#applied = generationOf(await this.#records.get(GENERATION).catch(() => undefined));
    this.#stops.push(
      admin.onReload((reload, fromCluster) => {
        if (!fromCluster && reload.ok) void this.#serial(() => this.#share());
      }),
    );
    this.#stops.push(
      await this.#records.subscribe(CHANNEL, () => void this.#serial(() => this.#catchUp())),
    );
    this.#stops.push(this.#link.onRestored(() => void this.#serial(() => this.#catchUp())));
  }

  async close(): Promise<void> {
    for (const stop of this.#stops.splice(0)) stop();
    await this.#queue;
  }

  /** Resolves once every reload seen so far is applied (tests). */
  settled(): Promise<void> {
    return this.#serial(async () => undefined);
  }

  #serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** A reload made here: a new generation, announced. Redis away: shared when it is back. */
  async #share(): Promise<void> {
    try {
      this.#applied = await this.#records.update(GENERATION, (text) => {
        const next = generationOf(text) + 1;
        return { value: String(next), result: next };
      });
      await this.#records.publish(CHANNEL, String(this.#applied));
    } catch (error) {
      this.#applied = -1; // behind whatever Redis holds once back: catch up then
      this.#logger.warn(
        `cluster: the policy reload applies on this replica only, not shared yet (${errorMessage(error)})`,
      );
    }
  }

  /** Another replica reloaded: re-read this replica's own file. */
  async #catchUp(): Promise<void> {
    let shared: number;
    try {
      shared = generationOf(await this.#records.get(GENERATION));
    } catch {
      return;
    }
    if (this.#applied === -1) {
      // This replica reloaded while Redis was away: now its reload is shared.
      await this.#share();
      return;
    }
    if (shared <= this.#applied) return;
    this.#applied = shared;
    const result = await HANDLERS.reload_policy.run(
      { manager: this.#manager, fromCluster: true },
      {},
    );
    if (result.ok) {
      this.#logger.info(
        `cluster: another replica reloaded the policy; reloaded ${result.file} here`,
      );
    } else {
      this.#logger.error(
        `cluster: another replica reloaded the policy, but the reload failed here (the old policy stays): ${result.error}`,
      );
    }
  }
}
