import { GateStateStore } from '../state/gate.ts';
import { MemoryRecordStore } from '../state/memoryRecords.ts';
import { gateStateContract } from './state.contract.ts';

gateStateContract('in memory', async () => {
  const store = new GateStateStore(new MemoryRecordStore());
  return { a: store, b: store };
});
