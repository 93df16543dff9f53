import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryRecordStore } from './memoryRecords.ts';
import { recordStoreContract } from './records.contract.ts';

recordStoreContract('in memory', async () => {
  const store = new MemoryRecordStore();
  return { a: store, b: store };
});

test('a capped store (a cache) drops expired records first, then the oldest written', async () => {
  let now = 0;
  const store = new MemoryRecordStore({ maxEntries: 3, clock: () => now });
  await store.set('old', '1');
  await store.set('expiring', '2', 10);
  await store.set('recent', '3');
  now = 20;
  await store.set('new', '4');
  assert.equal(await store.get('old'), '1', 'the expired record made room');
  await store.set('newer', '5');
  assert.equal(await store.get('old'), undefined, 'then the oldest went');
  assert.deepEqual(await Promise.all(['recent', 'new', 'newer'].map((k) => store.get(k))), [
    '3',
    '4',
    '5',
  ]);
});
