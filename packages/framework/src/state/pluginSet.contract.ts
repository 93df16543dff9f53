/**
 * The plugin set contract, run against one memory store (`pluginSet.test.ts`) and two links to
 * a real redis-server (`cluster/pluginSet.test.ts`), as two replicas see the set: the first
 * seeds it and later ones do not, changes are seen by both and announced to both, reload
 * generations only grow, and a report counts until it is stale.
 *
 * @module
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { waitFor } from '@mcpbox/test-utils';
import { type PluginChange, REPORT_TTL_MS, SharedPluginSet } from './pluginSet.ts';
import type { RecordStore } from './records.ts';

type After = { after(fn: () => unknown): void };
export type MakePluginStores = (t: After) => Promise<{ a: RecordStore; b: RecordStore }>;

export function pluginSetContract(name: string, make: MakePluginStores): void {
  describe(`plugin set contract: ${name}`, () => {
    test('the first replica seeds the set, a later one adopts it; changes are shared', async (t) => {
      const { a: ra, b: rb } = await make(t);
      const a = new SharedPluginSet(ra, 'replica-a');
      const b = new SharedPluginSet(rb, 'replica-b');
      assert.deepEqual(await b.read(), { plugins: [], reloads: {} });
      assert.equal(await a.initialize(['greet', 'echo']), true);
      assert.equal(await b.initialize(['other']), false, 'a set exists: adopted, not seeded');
      assert.deepEqual(await b.read(), { plugins: ['echo', 'greet'], reloads: {} });

      assert.equal(await b.added('memo'), 0);
      assert.equal(await a.reloaded('memo'), 1);
      assert.equal(await b.reloaded('memo'), 2);
      await a.removed('greet');
      assert.deepEqual(await b.read(), { plugins: ['echo', 'memo'], reloads: { memo: 2 } });
      assert.equal(await a.added('memo'), 2, 'added again: its generation stays');

      await a.removed('echo');
      await b.removed('memo');
      assert.equal(await a.initialize(['echo']), false, 'an emptied set is still a set');
    });

    test('every change is announced to every replica, the changer included', async (t) => {
      const { a: ra, b: rb } = await make(t);
      const a = new SharedPluginSet(ra, 'replica-a');
      const b = new SharedPluginSet(rb, 'replica-b');
      const onA: PluginChange[] = [];
      const onB: PluginChange[] = [];
      const stops = [await a.onChange((c) => onA.push(c)), await b.onChange((c) => onB.push(c))];
      t.after(() => {
        for (const stop of stops) stop();
      });
      await a.added('echo');
      await b.reloaded('echo');
      await waitFor(() => onA.length === 2 && onB.length === 2, 'both changes on both');
      const expected = [
        { type: 'loaded', plugin: 'echo', replica: 'replica-a' },
        { type: 'reloaded', plugin: 'echo', replica: 'replica-b' },
      ];
      assert.deepEqual(onA, expected);
      assert.deepEqual(onB, expected);
    });

    test('reports of live replicas are listed; a stale one drops out', async (t) => {
      const { a: ra, b: rb } = await make(t);
      const now = Date.now();
      const a = new SharedPluginSet(ra, 'replica-a', () => now);
      const b = new SharedPluginSet(rb, 'replica-b', () => now + REPORT_TTL_MS);
      await a.report({ plugins: ['echo'], errors: {} });
      await b.report({ plugins: [], errors: { echo: 'boom' } });
      assert.deepEqual(
        (await a.reports()).map((r) => [r.replica, r.plugins, r.errors]),
        [
          ['replica-a', ['echo'], {}],
          ['replica-b', [], { echo: 'boom' }],
        ],
      );
      // Seen from B's clock, A's report is as old as a report may be: gone.
      assert.deepEqual(
        (await b.reports()).map((r) => r.replica),
        ['replica-b'],
      );
    });
  });
}
