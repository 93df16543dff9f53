/**
 * `RecordStore`, the one seam every shared state is written on, as an interface: named string
 * records and maps with optional lifetimes, an atomic `update`, and channels. Part of the plugin
 * contract because a plugin in cluster mode gets the cluster's store (`server.cluster.records`);
 * the implementations are `state/memoryRecords.ts` and `cluster/redisRecords.ts`, and
 * `state/records.ts` says how states are built on it.
 *
 * @module
 */

/** How far a store reaches, for messages that say what resets its state. */
export type StateScope = 'process' | 'cluster';

/** What an {@link RecordStore.update} decides: the new value (none: leave it) and a result. */
export interface RecordChange<T> {
  /** The record's new value; `undefined` writes nothing. */
  value?: string;
  result: T;
}

export interface RecordStore {
  readonly scope: StateScope;
  /** The record's value, or undefined when absent or expired. */
  get(key: string): Promise<string | undefined>;
  /** Writes the record whole; with `ttlMs` it expires that long after this write. */
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  delete(key: string): Promise<void>;
  /**
   * Replaces the record with what `change` decides from its current value, atomically: when
   * another writer changed it in between, `change` runs again on the newer value (so it must
   * not have side effects). Resolves with the decision's `result`.
   */
  update<T>(
    key: string,
    change: (current: string | undefined) => RecordChange<T>,
    ttlMs?: number,
  ): Promise<T>;
  /** Every entry of the map record `key` (empty when absent). */
  entries(key: string): Promise<Map<string, string>>;
  /** Writes one entry of the map `key`; with `ttlMs` the whole map expires that long after. */
  setEntry(key: string, field: string, value: string, ttlMs?: number): Promise<void>;
  deleteEntry(key: string, field: string): Promise<void>;
  /** Sends `message` to every subscriber of `channel`, in this process and (shared) beyond. */
  publish(channel: string, message: string): Promise<void>;
  /** Delivers the messages of `channel`; resolves, once subscribed, with an unsubscriber. */
  subscribe(channel: string, listener: (message: string) => void): Promise<() => void>;
}
