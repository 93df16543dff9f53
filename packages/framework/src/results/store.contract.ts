/**
 * The result store's contract, run against one memory store (`store.test.ts`) and two links to a
 * real redis-server (`cluster/results.test.ts`), as two replicas see them: a result stored on one
 * is read on the other by its owner alone; another caller's handle and a forged one get the same
 * refusal; an expired one says when; over a budget the least recently read goes first.
 *
 * @module
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { RecordStore } from '../state/records.ts';
import { ResultStore, type ResultStoreLimits } from './store.ts';

type After = { after(fn: () => unknown): void };
export type MakeReplicaStores = (t: After) => Promise<{ a: RecordStore; b: RecordStore }>;

const LIMITS: ResultStoreLimits = { ttlMs: 60_000, perCallerBytes: 1000, totalBytes: 2500 };

function stores(a: RecordStore, b: RecordStore) {
  let now = Date.UTC(2026, 0, 1);
  const clock = () => now;
  return {
    a: new ResultStore(a, LIMITS, clock),
    b: new ResultStore(b, LIMITS, clock),
    advance: (ms: number) => {
      now += ms;
    },
  };
}

const body = (text: string) => ({
  tool: 'export',
  kind: 'text' as const,
  text,
  originalBytes: text.length,
});

/** The message `open` refuses with, the id masked (so two refusals can be compared). */
async function refusal(store: ResultStore, owner: string, id: string): Promise<string> {
  const error = await store.open(owner, id).then(
    () => assert.fail(`${owner} read ${id}`),
    (e: Error) => e,
  );
  assert.equal((error as { code?: string }).code, 'RESULT_UNAVAILABLE');
  return error.message.replaceAll(id, '<id>');
}

export function resultStoreContract(name: string, make: MakeReplicaStores): void {
  describe(`result store contract: ${name}`, () => {
    test('stored on one replica, read on the other by its owner; no one else learns it exists', async (t) => {
      const { a: ra, b: rb } = await make(t);
      const { a, b } = stores(ra, rb);
      const stored = await a.put('principal:alice', body('x'.repeat(300)));
      const read = await b.open('principal:alice', stored.id);
      assert.equal(read.text, 'x'.repeat(300));
      assert.equal(read.meta.bytes, 300);
      const unknown = await refusal(b, 'principal:mallory', 'A'.repeat(22));
      assert.match(unknown, /No stored result "<id>" for this caller/);
      assert.equal(await refusal(b, 'principal:mallory', stored.id), unknown);
      assert.equal(await refusal(b, 'session:alice', stored.id), unknown);
      assert.equal(await refusal(b, 'principal:alice', '../../etc'), unknown);
    });

    test('an expired result says when it expired', async (t) => {
      const { a: ra, b: rb } = await make(t);
      const { a, b, advance } = stores(ra, rb);
      const stored = await a.put('principal:alice', body('old'));
      advance(LIMITS.ttlMs);
      const message = await refusal(b, 'principal:alice', stored.id);
      const when = new Date(stored.expiresAt).toISOString();
      assert.match(message, new RegExp(`expired at ${when.replaceAll('.', '\\.')}`));
      assert.match(message, /result_preview\.ttl/);
    });

    test('over a caller’s budget its least recently read result goes; others’ stay', async (t) => {
      const { a: ra, b: rb } = await make(t);
      const { a, b, advance } = stores(ra, rb);
      const bob = await a.put('principal:bob', body('b'.repeat(400)));
      const first = await a.put('principal:alice', body('1'.repeat(400)));
      advance(1);
      const second = await a.put('principal:alice', body('2'.repeat(400)));
      advance(1);
      await b.open('principal:alice', first.id); // read: now the second is the oldest read
      advance(1);
      const third = await b.put('principal:alice', body('3'.repeat(400)));
      assert.match(await refusal(a, 'principal:alice', second.id), /dropped at .* budget/);
      for (const kept of [first, third]) {
        assert.equal((await a.open('principal:alice', kept.id)).meta.bytes, 400);
      }
      assert.equal((await a.open('principal:bob', bob.id)).text.length, 400);
    });

    test('over the total budget the least recently read of anyone goes', async (t) => {
      const { a: ra, b: rb } = await make(t);
      const { a, advance } = stores(ra, rb);
      const ids: string[] = [];
      for (const owner of ['a', 'b', 'c', 'd', 'e', 'f']) {
        ids.push((await a.put(`principal:${owner}`, body('z'.repeat(600)))).id);
        advance(1);
      }
      // 6 × 600 over a total of 2500: the first two stored (least recently read) are gone.
      assert.match(await refusal(a, 'principal:a', ids[0]!), /dropped at/);
      assert.match(await refusal(a, 'principal:b', ids[1]!), /dropped at/);
      assert.equal((await a.open('principal:f', ids[5]!)).text.length, 600);
    });
  });
}
