/**
 * The kernel directory contract, run against the memory store and the cluster's Redis store
 * (`kernelDirectory.test.ts`): two directories on one store, as two replicas see it. A kernel
 * published through one is found through the other, with its owner's default; a use is seen
 * everywhere; a retired kernel leaves a tombstone saying why, without its handle, and its
 * owner's default goes — but not a default that already moved to another kernel.
 *
 * @module
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { RecordStore } from '@mcpbox/framework';
import { kernelDirectory, type SharedKernel } from './kernelDirectory.ts';

type After = { after(fn: () => unknown): void };
export type MakeDirectoryStores = (t: After) => Promise<{ a: RecordStore; b: RecordStore }>;

const kernel = (id: string): SharedKernel => ({
  id,
  digest: 'd'.repeat(64),
  owner: 'principal:alice',
  remoteId: `remote-${id}`,
  handle: `ipk_${id}_secret`,
});

export function kernelDirectoryContract(name: string, make: MakeDirectoryStores): void {
  describe(`kernel directory contract: ${name}`, () => {
    test('a kernel published through one replica is found through the other', async (t) => {
      const { a: ra, b: rb } = await make(t);
      const [a, b] = [kernelDirectory(ra), kernelDirectory(rb)];
      assert.equal(a.shared, ra.scope === 'cluster');
      assert.equal(await b.kernel('k1'), undefined);
      await a.publish(kernel('k1'), 'principal:alice');
      assert.deepEqual(await b.kernel('k1'), kernel('k1'));
      assert.equal(await b.homeKernel('principal:alice'), 'k1');
      assert.equal(await b.homeKernel('principal:bob'), undefined);
      assert.equal(await a.lastUsed('k1'), undefined);
      await b.touch('k1');
      assert.equal(typeof (await a.lastUsed('k1')), 'number');
    });

    test('retiring leaves a tombstone without the handle, and the default goes', async (t) => {
      const { a: ra, b: rb } = await make(t);
      const [a, b] = [kernelDirectory(ra), kernelDirectory(rb)];
      await a.publish(kernel('k1'), 'principal:alice');
      await a.touch('k1');
      await b.retire(kernel('k1'), 'after 1800 s idle', 'principal:alice');
      const { handle: _, remoteId: __, ...rest } = kernel('k1');
      assert.deepEqual(await a.kernel('k1'), { ...rest, gone: 'after 1800 s idle' });
      assert.equal(await a.homeKernel('principal:alice'), undefined);
      assert.equal(await a.lastUsed('k1'), undefined);
    });

    test("retiring an old kernel keeps the owner's newer default", async (t) => {
      const { a: ra, b: rb } = await make(t);
      const [a, b] = [kernelDirectory(ra), kernelDirectory(rb)];
      await a.publish(kernel('k1'), 'principal:alice');
      await a.publish(kernel('k2'), 'principal:alice');
      await b.retire(kernel('k1'), 'reset', 'principal:alice');
      assert.equal(await a.homeKernel('principal:alice'), 'k2');
    });
  });
}
