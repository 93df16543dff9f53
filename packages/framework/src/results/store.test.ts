import { MemoryRecordStore } from '../state/memoryRecords.ts';
import { resultStoreContract } from './store.contract.ts';

resultStoreContract('in memory', async () => {
  const store = new MemoryRecordStore();
  return { a: store, b: store };
});
