/**
 * The contract every {@link RecordStore} keeps, run against the memory store
 * (`memoryRecords.test.ts`) and the cluster's Redis store (`cluster/redisRecords.test.ts`).
 * `make` gives two handles on one store, as two replicas see it (in memory: the same object).
 *
 * @module
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { waitFor } from '@mcpbox/test-utils';
import type { RecordStore } from './records.ts';

type After = { after(fn: () => unknown): void };
export type MakeStores = (t: After) => Promise<{ a: RecordStore; b: RecordStore }>;

export function recordStoreContract(name: string, make: MakeStores): void {
  describe(`record store contract, records: ${name}`, () => {
    test('a record written through one handle is read through the other, then deleted', async (t) => {
      const { a, b } = await make(t);
      assert.equal(await b.get('k'), undefined);
      await a.set('k', '{"n":1}');
      assert.equal(await b.get('k'), '{"n":1}');
      await b.set('k', 'two');
      assert.equal(await a.get('k'), 'two');
      await a.delete('k');
      assert.equal(await b.get('k'), undefined);
    });

    test('a record with a lifetime is gone after it; one without stays', async (t) => {
      const { a, b } = await make(t);
      await a.set('short', 'x', 50);
      await a.set('long', 'y');
      await waitFor(async () => (await b.get('short')) === undefined, 'the record to expire');
      assert.equal(await b.get('long'), 'y');
    });

    test('updates from both handles at once all count: none is lost', async (t) => {
      const { a, b } = await make(t);
      const increment = (store: RecordStore) =>
        store.update('counter', (current) => {
          const next = Number(current ?? 0) + 1;
          return { value: String(next), result: next };
        });
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => increment(i % 2 === 0 ? a : b)),
      );
      assert.equal(await a.get('counter'), '20');
      assert.deepEqual(
        [...results].sort((x, y) => x - y),
        Array.from({ length: 20 }, (_, i) => i + 1),
        'each update saw the one before it',
      );
    });

    test('an update that decides nothing writes nothing and returns its result', async (t) => {
      const { a, b } = await make(t);
      const seen = await a.update('absent', (current) => ({ result: current ?? 'none' }));
      assert.equal(seen, 'none');
      assert.equal(await b.get('absent'), undefined);
    });
  });
  mapAndChannelContract(name, make);
}

function mapAndChannelContract(name: string, make: MakeStores): void {
  describe(`record store contract, maps and channels: ${name}`, () => {
    test('map entries: written and deleted one by one, seen through the other handle', async (t) => {
      const { a, b } = await make(t);
      assert.deepEqual(await b.entries('m'), new Map());
      await a.setEntry('m', 'session:1', 'one');
      await b.setEntry('m', 'session:2', 'two', 60_000);
      assert.deepEqual(
        await a.entries('m'),
        new Map([
          ['session:1', 'one'],
          ['session:2', 'two'],
        ]),
      );
      await a.deleteEntry('m', 'session:1');
      assert.deepEqual(await b.entries('m'), new Map([['session:2', 'two']]));
      await b.delete('m');
      assert.deepEqual(await a.entries('m'), new Map());
    });

    test('a message published through one handle reaches the subscribers of both, once', async (t) => {
      const { a, b } = await make(t);
      const onA: string[] = [];
      const onB: string[] = [];
      const stopA = await a.subscribe('news', (m) => onA.push(m));
      const stopB = await b.subscribe('news', (m) => onB.push(m));
      await a.publish('news', 'first');
      await b.publish('other', 'elsewhere');
      await waitFor(() => onA.length === 1 && onB.length === 1, 'the message on both');
      stopB();
      await a.publish('news', 'second');
      await waitFor(() => onA.length === 2, 'the second message');
      assert.deepEqual(onA, ['first', 'second']);
      assert.deepEqual(onB, ['first'], 'nothing after unsubscribing, nothing of other channels');
      stopA();
    });
  });
}
