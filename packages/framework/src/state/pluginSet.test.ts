import { MemoryRecordStore } from './memoryRecords.ts';
import { pluginSetContract } from './pluginSet.contract.ts';

pluginSetContract('in memory', async () => {
  const store = new MemoryRecordStore();
  return { a: store, b: store };
});
