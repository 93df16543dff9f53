/**
 * The cluster's plugin set: which plugins every replica should have loaded, a reload
 * generation per plugin (a reload on one replica bumps it; the others reload when they see a
 * newer one), change messages on a channel, and each replica's report of what it actually has
 * — so a plugin that loads on one replica and fails on another shows up as divergence instead
 * of passing unseen. Written once over a {@link RecordStore}: in the cluster's Redis the set is
 * signed, so nobody who can only write Redis can make every replica load a plugin of theirs.
 *
 * The set is the truth: a replica applies a change message by re-reading it and reconciling,
 * which makes late starts, lost messages and a Redis restart converge the same way.
 *
 * @module
 */
import type { RecordStore } from './records.ts';

export interface SharedPlugins {
  /** Sorted. */
  plugins: string[];
  /** Plugin → reload generation (0 or absent: never reloaded). */
  reloads: Record<string, number>;
}

/** What one replica has loaded and what failed there, refreshed while it runs. */
export interface ReplicaReport {
  replica: string;
  /** Loaded plugins (not built-in ones), sorted. */
  plugins: string[];
  /** Plugin → why it failed to load or reload here. */
  errors: Record<string, string>;
  /** Milliseconds since the epoch of this report. */
  at: number;
}

/** A change any replica announces. */
export interface PluginChange {
  type: string;
  plugin: string;
  replica: string;
}

/** How long a replica's report counts after its last refresh: a dead replica drops out. */
export const REPORT_TTL_MS = 30_000;

const SET = 'plugins:shared';
const REPORTS = 'plugins:replicas';
const CHANNEL = 'plugins';

export class SharedPluginSet {
  readonly #records: RecordStore;
  readonly #replicaId: string;
  readonly #clock: () => number;

  constructor(records: RecordStore, replicaId: string, clock: () => number = Date.now) {
    this.#records = records;
    this.#replicaId = replicaId;
    this.#clock = clock;
  }

  get replicaId(): string {
    return this.#replicaId;
  }

  async read(): Promise<SharedPlugins> {
    return parseSet(await this.#records.get(SET)) ?? { plugins: [], reloads: {} };
  }

  /**
   * Seeds the set with `plugins` if the cluster has none yet (an empty set, everything
   * unloaded, is a set too); true when this call did.
   */
  async initialize(plugins: readonly string[]): Promise<boolean> {
    return await this.#records.update(SET, (text) =>
      text === undefined
        ? {
            value: JSON.stringify({ plugins: [...new Set(plugins)].sort(), reloads: {} }),
            result: true,
          }
        : { result: false },
    );
  }

  /** Adds a plugin loaded here and tells the others; resolves with its reload generation. */
  async added(plugin: string): Promise<number> {
    const generation = await this.#change((set) => {
      if (!set.plugins.includes(plugin)) set.plugins = [...set.plugins, plugin].sort();
      return set.reloads[plugin] ?? 0;
    });
    await this.#announce('loaded', plugin);
    return generation;
  }

  async removed(plugin: string): Promise<void> {
    await this.#change((set) => {
      set.plugins = set.plugins.filter((p) => p !== plugin);
    });
    await this.#announce('unloaded', plugin);
  }

  /** Bumps the plugin's reload generation and tells the others; resolves with the new one. */
  async reloaded(plugin: string): Promise<number> {
    const generation = await this.#change((set) => {
      set.reloads[plugin] = (set.reloads[plugin] ?? 0) + 1;
      return set.reloads[plugin];
    });
    await this.#announce('reloaded', plugin);
    return generation;
  }

  /** Calls `listener` for every change any replica announces (this one's too). */
  onChange(listener: (change: PluginChange) => void): Promise<() => void> {
    return this.#records.subscribe(CHANNEL, (message) => {
      try {
        listener(JSON.parse(message) as PluginChange);
      } catch {
        // Not ours: ignore.
      }
    });
  }

  async report(report: Omit<ReplicaReport, 'replica' | 'at'>): Promise<void> {
    const full: ReplicaReport = { replica: this.#replicaId, at: this.#clock(), ...report };
    await this.#records.setEntry(REPORTS, this.#replicaId, JSON.stringify(full), REPORT_TTL_MS);
  }

  /** The reports of every live replica, this one included, sorted by replica. */
  async reports(): Promise<ReplicaReport[]> {
    const live: ReplicaReport[] = [];
    const oldest = this.#clock() - REPORT_TTL_MS;
    for (const [replica, text] of await this.#records.entries(REPORTS)) {
      const report = JSON.parse(text) as ReplicaReport;
      if (report.at > oldest) live.push(report);
      else await this.#records.deleteEntry(REPORTS, replica).catch(() => undefined);
    }
    return live.sort((a, b) => a.replica.localeCompare(b.replica));
  }

  /** One atomic change of the set; `edit` changes the copy it is given and returns a result. */
  async #change<T>(edit: (set: SharedPlugins) => T): Promise<T> {
    return await this.#records.update(SET, (text) => {
      const set = parseSet(text) ?? { plugins: [], reloads: {} };
      const result = edit(set);
      return { value: JSON.stringify(set), result };
    });
  }

  async #announce(type: string, plugin: string): Promise<void> {
    const change: PluginChange = { type, plugin, replica: this.#replicaId };
    await this.#records.publish(CHANNEL, JSON.stringify(change));
  }
}

function parseSet(text: string | undefined): SharedPlugins | undefined {
  return text === undefined ? undefined : (JSON.parse(text) as SharedPlugins);
}
