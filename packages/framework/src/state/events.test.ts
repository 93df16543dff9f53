import { eventBusContract } from './events.contract.ts';
import { MemoryRecordStore } from './memoryRecords.ts';

eventBusContract('in memory', async () => {
  const store = new MemoryRecordStore();
  return [store, store, store];
});
