/**
 * The key ring contract, run against a process's random keys and a cluster's keys derived from
 * its secret (`keys.test.ts`): 32 bytes per purpose, the same bytes on every call, different
 * bytes for different purposes; two rings (two processes, or two replicas) agree exactly when
 * they are meant to share — never by way of Redis.
 *
 * @module
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KEY_PURPOSES, type KeyRing } from './keys.ts';

/** Two rings as two processes (or replicas) get them, and whether they must agree. */
export type MakeKeyRings = () => { a: KeyRing; b: KeyRing; shared: boolean };

export function keyRingContract(name: string, make: MakeKeyRings): void {
  test(`key ring contract (${name}): stable, one key per purpose, shared only when meant to`, () => {
    const { a, b, shared } = make();
    const keys = KEY_PURPOSES.map((purpose) => a.key(purpose));
    for (const [i, purpose] of KEY_PURPOSES.entries()) {
      assert.equal(keys[i]!.length, 32);
      assert.ok(a.key(purpose).equals(keys[i]!), `${purpose}: the same key on every call`);
      assert.equal(b.key(purpose).equals(keys[i]!), shared, `${purpose}: the other ring`);
    }
    assert.equal(new Set(keys.map((key) => key.toString('hex'))).size, KEY_PURPOSES.length);
  });
}
