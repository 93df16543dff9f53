import { leasesContract } from './leases.contract.ts';
import { MemoryRecordStore } from './memoryRecords.ts';

leasesContract('in memory', async () => {
  const store = new MemoryRecordStore();
  return { a: store, b: store };
});
