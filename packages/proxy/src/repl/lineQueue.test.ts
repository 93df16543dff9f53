import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LineQueue } from './lineQueue.ts';

test('lines pushed before they are asked for come out in order', async () => {
  const q = new LineQueue();
  q.push('one');
  q.push('two');
  assert.equal(await q.next(), 'one');
  assert.equal(await q.next(), 'two');
});

test('a waiting read gets the next line; after end, reads drain then give null', async () => {
  const q = new LineQueue();
  const pending = q.next();
  assert.equal(q.waiting, true);
  q.push('late');
  assert.equal(await pending, 'late');
  q.push('last');
  q.end();
  assert.equal(await q.next(), 'last');
  assert.equal(await q.next(), null);
});

test('interrupt gives the waiting read null but keeps the input open', async () => {
  const q = new LineQueue();
  const pending = q.next();
  q.interrupt();
  assert.equal(await pending, null);
  q.push('after');
  assert.equal(await q.next(), 'after');
});
