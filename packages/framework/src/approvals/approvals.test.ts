import { MemoryRecordStore } from '../state/memoryRecords.ts';
import { approvalsContract } from './approvals.contract.ts';

approvalsContract('in memory', async () => {
  const store = new MemoryRecordStore();
  return { a: store, b: store };
});
