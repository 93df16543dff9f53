// The in-memory spent rounds: a round is spent once, stays spent for its state's lifetime,
// can be released, and the store never holds more than its cap.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemorySpentRounds } from './spentRounds.ts';

test('a round is spent once, until its lifetime ends; a released round can be spent again', async () => {
  let now = 0;
  const rounds = new MemorySpentRounds(() => now);
  assert.equal(await rounds.spend('r1', 1000), true);
  assert.equal(await rounds.spend('r1', 1000), false);
  await rounds.release('r1');
  assert.equal(await rounds.spend('r1', 1000), true);
  now = 999;
  assert.equal(await rounds.spend('r1', 1000), false);
  now = 1000;
  assert.equal(await rounds.spend('r1', 1000), true, 'its state has expired by now');
});

test('past the cap the oldest rounds are forgotten first', async () => {
  const rounds = new MemorySpentRounds(() => 0, 3);
  for (const id of ['a', 'b', 'c', 'd']) assert.equal(await rounds.spend(id, 1000), true);
  assert.equal(await rounds.spend('d', 1000), false);
  assert.equal(await rounds.spend('c', 1000), false);
  assert.equal(await rounds.spend('a', 1000), true, 'the oldest went first');
});
