/**
 * The introspection cache contract: two caches (two replicas' verifiers) behind the same shared
 * store — a memory one (`introspectionCache.test.ts`) or the cluster's Redis records
 * (`cluster/introspectionCache.test.ts`). An answer cached through one is found through the
 * other; none is used past its end or its token's `exp`; forgetting is local; a shared store
 * that is away is a miss, never an error.
 *
 * @module
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type CachedIntrospection, IntrospectionCache } from './introspectionCache.ts';
import { installProcessState, processState } from './process.ts';
import type { RecordStore } from './records.ts';

type After = { after(fn: () => unknown): void };
export type MakeSharedCache = (
  t: After,
) => Promise<{ shared: RecordStore; kill?: () => Promise<void> }>;

const HASH = 'a'.repeat(64);

function active(until: number, expiresAt?: number): CachedIntrospection {
  return {
    kind: 'active',
    info: {
      clientId: 'app',
      scopes: ['read'],
      ...(expiresAt && { expiresAt }),
      extra: { sub: 'alice' },
    },
    until,
  };
}

async function replicas(t: After, make: MakeSharedCache) {
  const { shared, kill } = await make(t);
  t.after(installProcessState({ ...processState(), sharedCaches: [shared] }));
  return { a: new IntrospectionCache(), b: new IntrospectionCache(), kill };
}

export function introspectionCacheContract(name: string, make: MakeSharedCache): void {
  describe(`introspection cache contract: ${name}`, () => {
    test('an answer cached through one replica is found through the other, until its end', async (t) => {
      const { a, b } = await replicas(t, make);
      const now = Date.now();
      const entry = active(now + 60_000, Math.floor(now / 1000) + 3600);
      a.set(HASH, entry, now);
      await waitForShared(now);
      assert.deepEqual(await b.get(HASH, now), entry);
      assert.equal(await b.get(HASH, now + 60_000), undefined, 'not at its end');
      assert.equal(await a.get('b'.repeat(64), now), undefined);
    });

    test("never past the token's own exp, nor for an inactive answer past its end", async (t) => {
      const { a, b } = await replicas(t, make);
      const now = Date.now();
      a.set(HASH, active(now + 600_000, Math.floor(now / 1000) + 10), now);
      await waitForShared(now);
      assert.equal(await b.get(HASH, now + 10_000), undefined);
      const inactive: CachedIntrospection = { kind: 'inactive', until: now + 30_000 };
      a.set('c'.repeat(64), inactive, now);
      assert.deepEqual(await a.get('c'.repeat(64), now), inactive);
      assert.equal(await a.get('c'.repeat(64), now + 30_000), undefined);
    });

    test("forgetting is this replica's: the shared answer stays", async (t) => {
      const { a } = await replicas(t, make);
      const now = Date.now();
      const entry = active(now + 60_000);
      a.set(HASH, entry, now);
      await waitForShared(now);
      a.clear();
      assert.deepEqual(await a.get(HASH, now), entry);
    });

    test('a shared store that is away is a miss, not an error', async (t) => {
      const { a, kill } = await replicas(t, make);
      if (!kill) return t.skip('nothing shared to lose in memory');
      const now = Date.now();
      a.set(HASH, active(now + 60_000), now);
      await waitForShared(now);
      await kill();
      assert.equal(await new IntrospectionCache().get(HASH, now), undefined);
      assert.ok(await a.get(HASH, now), 'what this replica holds still counts');
    });
  });
}

/** Shared writes are not awaited by `set`: wait for the entry to be readable elsewhere. */
async function waitForShared(now: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  while ((await new IntrospectionCache().get(HASH, now)) === undefined) {
    assert.ok(Date.now() < deadline, 'the entry reached the shared store');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
