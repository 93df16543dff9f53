import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keyRingContract } from './keys.contract.ts';
import { randomKeyRing, secretKeyRing } from './keys.ts';

const SECRET = 'a-cluster-secret-of-forty-characters-000';

keyRingContract('one process: random', () => ({
  a: randomKeyRing(),
  b: randomKeyRing(),
  shared: false,
}));

keyRingContract('a cluster: derived from cluster.secret', () => ({
  a: secretKeyRing(SECRET),
  b: secretKeyRing(SECRET),
  shared: true,
}));

test('another secret derives other keys; a short secret is refused without echoing it', () => {
  const other = secretKeyRing(`${SECRET}-other`);
  assert.ok(!other.key('records').equals(secretKeyRing(SECRET).key('records')));
  assert.throws(
    () => secretKeyRing('short-secret'),
    (error: Error) => {
      assert.match(error.message, /12 characters; at least 32/);
      assert.doesNotMatch(error.message, /short-secret/);
      return true;
    },
  );
});
