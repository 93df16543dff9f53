/** FrameStore: what a kernel's frame description must be to be kept, and who may read it. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KernelSession } from '../kernels/kernelSession.ts';
import { FrameStore } from './frameStore.ts';

const session = {} as KernelSession;
const good = { key: 'f3', rows: 100_000, columns: ['a', 1], dtypes: ['int64', 'object'] };

test('a well-formed description is kept under a random id, for its caller only', () => {
  const store = new FrameStore();
  const summary = store.add('session:A', session, good);
  assert.ok(summary);
  assert.match(summary.id, /^[A-Za-z0-9_-]{22}$/);
  assert.deepEqual(summary.columns, ['a', '1']);
  assert.equal(store.get(summary.id, 'session:A')?.key, 'f3');
  assert.equal(store.get(summary.id, 'session:B'), undefined);
  assert.notEqual(store.add('session:A', session, good)?.id, summary.id);
});

test('forged or malformed descriptions (kernel output user code controls) are dropped', () => {
  const store = new FrameStore();
  for (const bad of [
    undefined,
    'f1',
    { ...good, key: "f1'); import os #" },
    { ...good, key: 'f1\n' },
    { ...good, rows: -1 },
    { ...good, rows: 1.5 },
    { ...good, rows: '10' },
    { ...good, columns: 'a' },
  ]) {
    assert.equal(store.add('session:A', session, bad), undefined, JSON.stringify(bad));
  }
  assert.equal(store.size, 0);
});

test('bounded: the oldest go first; a caller that ended loses its frames', () => {
  const store = new FrameStore(2);
  const first = store.add('session:A', session, good);
  const second = store.add('session:B', session, good);
  const third = store.add('session:A', session, good);
  assert.ok(first && second && third);
  assert.equal(store.get(first.id, 'session:A'), undefined);
  assert.ok(store.get(second.id, 'session:B'));
  store.dropCaller('session:A');
  assert.equal(store.get(third.id, 'session:A'), undefined);
  assert.equal(store.size, 1);
});

test('a frame of thousands of columns names the first 200 to the viewer', () => {
  const store = new FrameStore();
  const columns = Array.from({ length: 5000 }, (_, i) => `c${i}`);
  const summary = store.add('session:A', session, { ...good, columns });
  assert.equal(summary?.columns.length, 200);
});
