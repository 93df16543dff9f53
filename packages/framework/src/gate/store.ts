/**
 * The gate's state store as gates use it: the rules and their state live in `state/gate.ts`
 * over the process's record store — memory alone, the cluster's Redis once the process joined
 * a cluster (every gate follows, whenever it was made).
 *
 * @module
 */
import { GateStateStore } from '../state/gate.ts';
import { MemoryRecordStore } from '../state/memoryRecords.ts';
import { processRecords } from '../state/process.ts';
import type { GateGroupSettings, GateSettings } from './config.ts';

export {
  type ClaimAnswer,
  GateStateStore,
  type GroupState,
  type StepClaim,
} from '../state/gate.ts';

/** A store of its own in memory: a gate whose state nothing else shares (tests). */
export class InMemoryGateStateStore extends GateStateStore {
  constructor() {
    super(new MemoryRecordStore());
  }
}

/** The store every gate of this process uses unless given another. */
export const processGateStore = new GateStateStore(processRecords);

/**
 * Where a group's state is kept: its name and where its secret comes from (backend, source,
 * reference), so every gate guarding one secret shares one record.
 */
export function secretKeyOf(settings: GateSettings, group: GateGroupSettings): string {
  const source =
    settings.backend === 'file'
      ? settings.secretFile
      : settings.backend === 'vaultwarden'
        ? settings.vaultwardenUrl
        : '';
  return `${group.name}\u0000${settings.backend}\u0000${source}\u0000${group.secretRef}`;
}
