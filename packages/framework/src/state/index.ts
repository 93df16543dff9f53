/**
 * Shared state, one module per state over one seam ({@link RecordStore}): in memory alone, in
 * the cluster's Redis (signed) across replicas. See `records.ts` for how to add one.
 *
 * @module
 */
export { SharedEventBus } from './events.ts';
export { type ClaimAnswer, GateStateStore, type GroupState, type StepClaim } from './gate.ts';
export { type CachedIntrospection, IntrospectionCache } from './introspectionCache.ts';
export {
  KEY_PURPOSES,
  type KeyPurpose,
  type KeyRing,
  MIN_SECRET_LENGTH,
  randomKeyRing,
  secretKeyRing,
} from './keys.ts';
export { MemoryRecordStore, type MemoryRecordStoreOptions } from './memoryRecords.ts';
export {
  type PluginChange,
  REPORT_TTL_MS,
  type ReplicaReport,
  SharedPluginSet,
  type SharedPlugins,
} from './pluginSet.ts';
export { installProcessState, type ProcessState, processRecords, processState } from './process.ts';
export {
  type RecordChange,
  type RecordStore,
  type StateScope,
  UnverifiedRecordError,
} from './records.ts';
