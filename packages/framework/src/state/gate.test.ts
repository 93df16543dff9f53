import { gateStateContract } from './gate.contract.ts';
import { GateStateStore } from './gate.ts';
import { MemoryRecordStore } from './memoryRecords.ts';

gateStateContract('in memory', async () => {
  const store = new GateStateStore(new MemoryRecordStore());
  return { a: store, b: store };
});
