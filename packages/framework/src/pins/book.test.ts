import { MemoryRecordStore } from '../state/memoryRecords.ts';
import { pinBookContract } from './book.contract.ts';

pinBookContract('in memory', async () => {
  const store = new MemoryRecordStore();
  return { a: store, b: store };
});
