import { introspectionCacheContract } from './introspectionCache.contract.ts';
import { MemoryRecordStore } from './memoryRecords.ts';

introspectionCacheContract('in memory', async () => ({ shared: new MemoryRecordStore() }));
