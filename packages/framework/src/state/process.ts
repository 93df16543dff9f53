/**
 * This process's state stores, in one place: where shared state lives (memory, or the
 * cluster's Redis once `joinCluster` installed it) and the keys it signs and seals with. The
 * gate's default store, the unlock handles, the introspection cache and whatever shared state
 * comes next read them here, so joining a cluster switches them all at once, at start, before
 * any gate, session or token is used.
 *
 * @module
 */
import { type KeyRing, randomKeyRing } from './keys.ts';
import { MemoryRecordStore } from './memoryRecords.ts';
import type { RecordStore } from './records.ts';

export interface ProcessState {
  /** Where this process's shared state lives. */
  readonly records: RecordStore;
  readonly keys: KeyRing;
  /**
   * Stores other processes read too, behind a process's own caches (the introspection cache):
   * none alone, the cluster's records in a cluster.
   */
  readonly sharedCaches: readonly RecordStore[];
}

let current: ProcessState = {
  records: new MemoryRecordStore(),
  keys: randomKeyRing(),
  sharedCaches: [],
};

export function processState(): ProcessState {
  return current;
}

/** Installs `state` (cluster mode, at start); returns what puts the previous one back. */
export function installProcessState(state: ProcessState): () => void {
  const previous = current;
  current = state;
  return () => {
    current = previous;
  };
}

/** The process's record store, whichever is installed when each call is made. */
export const processRecords: RecordStore = {
  get scope() {
    return current.records.scope;
  },
  get: (key) => current.records.get(key),
  set: (key, value, ttlMs) => current.records.set(key, value, ttlMs),
  delete: (key) => current.records.delete(key),
  update: (key, change, ttlMs) => current.records.update(key, change, ttlMs),
  entries: (key) => current.records.entries(key),
  setEntry: (key, field, value, ttlMs) => current.records.setEntry(key, field, value, ttlMs),
  deleteEntry: (key, field) => current.records.deleteEntry(key, field),
  publish: (channel, message) => current.records.publish(channel, message),
  subscribe: (channel, listener) => current.records.subscribe(channel, listener),
};
