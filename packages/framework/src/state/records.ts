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

export type { RecordChange, RecordStore, StateScope } from '../contract/records.ts';

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
