/**
 * The one seam every shared state is written on. A `RecordStore` holds named string records
 * (whole values, or maps of entries), each with an optional lifetime, changes one record
 * atomically ({@link RecordStore.update}: read, decide, write — retried when another writer got
 * there first), and carries messages on channels.
 *
 * Two implementations, one contract (`records.contract.ts`): {@link MemoryRecordStore} for one
 * process, and the cluster's Redis store (`cluster/redisRecords.ts`), which signs every record
 * and message with a key that is not in Redis and refuses what does not verify. Each state —
 * the gate (`gate.ts`), the plugin set, the introspection cache, events, ipybox's kernel
 * directory — is written once over this interface, so its rules live in one place and work the
 * same alone and across replicas. New shared state (rate limits, pins, grants) does the same:
 * a module over `RecordStore`, and a contract suite run against both stores.
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

/**
 * A record or message that does not carry the store's signature: written by something other
 * than a replica (whoever can write Redis), or by a replica with another `cluster.secret`.
 * It is never used: reading it fails (or, in a map, skips the entry).
 */
export class UnverifiedRecordError extends Error {
  readonly code = 'UNVERIFIED_RECORD';
  constructor(key: string, why = 'its signature does not verify') {
    super(
      `the shared record '${key}' was refused: ${why} — it was not written by a replica of ` +
        'this cluster (or one with another cluster.secret)',
    );
    this.name = 'UnverifiedRecordError';
  }
}
