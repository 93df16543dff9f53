// Spent rounds: a round is spent once, stays spent for its state's lifetime, can be released,
// this process never remembers more than its cap, and a round spent by one replica is spent for
// every replica sharing a store.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryRecordStore } from '../state/memoryRecords.ts';
import { installProcessState, processState } from '../state/process.ts';
import { SpentRounds } from './spentRounds.ts';

test('a round is spent once, until its lifetime ends; a released round can be spent again', async () => {
  let now = 0;
  const rounds = new SpentRounds({ clock: () => now });
  assert.equal(await rounds.spend('r1', 1000), true);
  assert.equal(await rounds.spend('r1', 1000), false);
  await rounds.release('r1');
  assert.equal(await rounds.spend('r1', 1000), true);
  now = 999;
  assert.equal(await rounds.spend('r1', 1000), false);
  now = 1000;
  assert.equal(await rounds.spend('r1', 1000), true, 'its state has expired by now');
});

test('past the cap this process forgets the oldest rounds first', async () => {
  const rounds = new SpentRounds({ clock: () => 0, maxRounds: 3 });
  for (const id of ['a', 'b', 'c', 'd']) assert.equal(await rounds.spend(id, 1000), true);
  assert.equal(await rounds.spend('d', 1000), false);
  assert.equal(await rounds.spend('c', 1000), false);
  assert.equal(await rounds.spend('a', 1000), true, 'the oldest went first');
});

test('replicas sharing a store: a round spent on one is spent on the other; a store away refuses', async (t) => {
  const alone = processState();
  t.after(() => void installProcessState(alone));
  const shared = new MemoryRecordStore();
  installProcessState({ ...alone, sharedCaches: [shared] });
  const [a, b] = [new SpentRounds(), new SpentRounds()];
  assert.equal(await a.spend('r', 60_000), true);
  assert.equal(await b.spend('r', 60_000), false);
  await b.release('r');
  assert.equal(await b.spend('r', 60_000), true, 'released everywhere');

  const away = Object.assign(Object.create(shared), {
    update: async () => {
      throw new Error('Redis unreachable');
    },
  });
  installProcessState({ ...alone, sharedCaches: [away] });
  await assert.rejects(a.spend('s', 60_000), /Redis unreachable/);
});
