/**
 * The cluster's plugin set in Redis: which plugins every replica should have loaded, a reload
 * generation per plugin (a reload on one replica bumps it; the others reload when they see a
 * newer one), change messages on a channel, and each replica's report of what it actually has
 * — so a plugin that loads on one replica and fails on another shows up as divergence instead
 * of passing unseen.
 *
 * The set is the truth: a replica applies a change message by re-reading it and reconciling,
 * which makes late starts, lost messages and a Redis restart converge the same way.
 *
 * @module
 */
import type { ClusterLink } from './link.ts';

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

/** How long a replica's report outlives its last refresh: a dead replica drops out. */
export const REPORT_TTL_MS = 30_000;

const CHANNEL = 'plugins';

// Creates the set from the first replica's plugins, unless it was created before (even if it
// is empty now: everything unloaded is a set too).
const INITIALIZE = `
if redis.call('exists', KEYS[1]) == 1 then return 0 end
redis.call('set', KEYS[1], '1')
for _, plugin in ipairs(ARGV) do redis.call('sadd', KEYS[2], plugin) end
return 1`;

export class SharedPluginSet {
  readonly #link: ClusterLink;

  constructor(link: ClusterLink) {
    this.#link = link;
  }

  get replicaId(): string {
    return this.#link.replicaId;
  }

  async read(): Promise<SharedPlugins> {
    const [members, reloads] = await Promise.all([
      this.#link.redis.smembers(this.#key('set')),
      this.#link.redis.hgetall(this.#key('reloads')),
    ]);
    return {
      plugins: members.sort(),
      reloads: Object.fromEntries(Object.entries(reloads).map(([k, v]) => [k, Number(v)])),
    };
  }

  /** Seeds the set with `plugins` if the cluster has none yet; true when this call did. */
  async initialize(plugins: readonly string[]): Promise<boolean> {
    const created = await this.#link.redis.eval(
      INITIALIZE,
      2,
      this.#key('initialized'),
      this.#key('set'),
      ...plugins,
    );
    return created === 1;
  }

  /** Adds a plugin loaded here and tells the others; resolves with its reload generation. */
  async added(plugin: string): Promise<number> {
    const replies = await this.#link.redis
      .multi()
      .set(this.#key('initialized'), '1')
      .sadd(this.#key('set'), plugin)
      .hget(this.#key('reloads'), plugin)
      .exec();
    await this.#announce('loaded', plugin);
    return Number(replies?.[2]?.[1] ?? 0);
  }

  async removed(plugin: string): Promise<void> {
    await this.#link.redis
      .multi()
      .set(this.#key('initialized'), '1')
      .srem(this.#key('set'), plugin)
      .exec();
    await this.#announce('unloaded', plugin);
  }

  /** Bumps the plugin's reload generation and tells the others; resolves with the new one. */
  async reloaded(plugin: string): Promise<number> {
    const generation = await this.#link.redis.hincrby(this.#key('reloads'), plugin, 1);
    await this.#announce('reloaded', plugin);
    return generation;
  }

  /** Calls `listener` for every change any replica announces (this one's too). */
  onChange(listener: (change: { type: string; plugin: string; replica: string }) => void) {
    return this.#link.subscribe(CHANNEL, (message) => {
      try {
        listener(JSON.parse(message));
      } catch {
        // Not ours: ignore.
      }
    });
  }

  async report(report: Omit<ReplicaReport, 'replica' | 'at'>): Promise<void> {
    const full: ReplicaReport = { replica: this.replicaId, at: Date.now(), ...report };
    await this.#link.redis.set(
      this.#key('replica', this.replicaId),
      JSON.stringify(full),
      'PX',
      REPORT_TTL_MS,
    );
  }

  /** The reports of every live replica, this one included, sorted by replica. */
  async reports(): Promise<ReplicaReport[]> {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, found] = await this.#link.redis.scan(
        cursor,
        'MATCH',
        this.#key('replica', '*'),
        'COUNT',
        100,
      );
      cursor = next;
      keys.push(...found);
    } while (cursor !== '0');
    if (keys.length === 0) return [];
    const values = await this.#link.redis.mget(...keys);
    return values
      .flatMap((value) => (value ? [JSON.parse(value) as ReplicaReport] : []))
      .sort((a, b) => a.replica.localeCompare(b.replica));
  }

  async #announce(type: string, plugin: string): Promise<void> {
    await this.#link.publish(CHANNEL, JSON.stringify({ type, plugin, replica: this.replicaId }));
  }

  #key(...parts: string[]): string {
    return this.#link.key('plugins', ...parts);
  }
}
