/**
 * The lease contract, run against one memory store (`leases.test.ts`) and two links to a real
 * redis-server (`cluster/leases.test.ts`), as two replicas see the slots: a cap holds across
 * both, a released or lapsed lease frees its slot, a renewed one does not lapse, and racing
 * replicas never take more than the cap.
 *
 * @module
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LeaseStore } from './leases.ts';
import type { RecordStore } from './records.ts';

type After = { after(fn: () => unknown): void };
export type MakeLeaseStores = (t: After) => Promise<{ a: RecordStore; b: RecordStore }>;

const LEASE = 60_000;

export function leasesContract(name: string, make: MakeLeaseStores): void {
  describe(`lease contract: ${name}`, () => {
    test('a cap holds across replicas; a released slot is free again', async (t) => {
      const { a: ra, b: rb } = await make(t);
      const [a, b] = [new LeaseStore(ra, 'running'), new LeaseStore(rb, 'running')];
      const now = Date.now();
      const first = await a.acquire('sub:alice', 2, now, LEASE);
      const second = await b.acquire('sub:alice', 2, now, LEASE);
      assert.ok(first && second);
      assert.equal(await a.acquire('sub:alice', 2, now, LEASE), undefined, 'the cap is 2');
      assert.ok(await b.acquire('sub:bob', 2, now, LEASE), 'another key has its own slots');
      assert.equal(await b.held('sub:alice', now), 2);
      await a.release('sub:alice', second, now, LEASE);
      assert.equal(await b.held('sub:alice', now), 1);
      assert.ok(await b.acquire('sub:alice', 2, now, LEASE));
    });

    test('a lease not renewed lapses (its holder died); a renewed one stands', async (t) => {
      const { a: ra, b: rb } = await make(t);
      const [a, b] = [new LeaseStore(ra, 'running'), new LeaseStore(rb, 'running')];
      const now = Date.now();
      const dead = await a.acquire('sub:alice', 2, now, LEASE);
      const alive = await a.acquire('sub:alice', 2, now, LEASE);
      assert.ok(dead && alive);
      assert.equal(await b.renew('sub:alice', alive, now + LEASE / 2, LEASE), true);
      const later = now + LEASE + 1;
      assert.equal(await b.held('sub:alice', later), 1, 'the dead holder’s slot lapsed');
      assert.equal(await b.renew('sub:alice', dead, later, LEASE), false);
      assert.ok(await b.acquire('sub:alice', 2, later, LEASE));
    });

    test('replicas racing for the last slots take no more than the cap', async (t) => {
      const { a: ra, b: rb } = await make(t);
      const stores = [new LeaseStore(ra, 'running'), new LeaseStore(rb, 'running')];
      const now = Date.now();
      const taken = await Promise.all(
        Array.from({ length: 12 }, (_, i) => stores[i % 2]!.acquire('sub:carol', 3, now, LEASE)),
      );
      assert.equal(taken.filter((id) => id !== undefined).length, 3);
    });
  });
}
