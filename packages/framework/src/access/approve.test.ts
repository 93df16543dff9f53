// Policy `approve` rules: they allow a call only with an approval of exactly that call, name who
// approves and for how long, lose to a deny, fail closed, and the policy's version changes with
// its settings (so a reload voids earlier grants).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Principal } from '../contract/principal.ts';
import { ConfigError } from '../errors.ts';
import { AccessControl } from './access.ts';
import { parseAccessSettings } from './settings.ts';
import type { ToolSubject } from './views.ts';

const alice: Principal = {
  id: 'sub:alice',
  kind: 'oauth',
  subject: 'alice',
  scopes: [],
  groups: ['billing'],
  claims: {},
};
const refund: ToolSubject = {
  name: 'billing__refund',
  plugin: 'billing',
  definition: { name: 'billing__refund', inputSchema: { type: 'object' } },
};

const policy = (rules: unknown[]) =>
  new AccessControl(parseAccessSettings({ policy: { default: 'deny', rules } }));

test('an approve rule allows with an approval; small amounts need none; a deny still wins', () => {
  const access = policy([
    { name: 'small', allow: 'args.amount <= 100' },
    { name: 'big', tools: ['billing__*'], approve: 'args.amount > 100', approver: 'operator' },
    { name: 'frozen', deny: 'args.amount > 10000' },
  ]);
  const small = access.admit(alice, undefined, refund, { amount: 5 });
  assert.deepEqual(small, { admitted: true, args: { amount: 5 }, rule: 'small' });
  const big = access.admit(alice, undefined, refund, { amount: 500 });
  assert.ok(big.admitted && big.approval);
  assert.equal(big.rule, 'big');
  assert.deepEqual(
    { rule: big.approval.rule, approver: big.approval.approver, ttlMs: big.approval.ttlMs },
    { rule: 'big', approver: 'operator', ttlMs: 300_000 },
  );
  assert.match(big.approval.policyVersion, /^[0-9a-f]{64}$/);
  const frozen = access.admit(alice, undefined, refund, { amount: 20000 });
  assert.equal(frozen.admitted, false);
  assert.equal(access.mayList(alice, undefined, refund), true, 'listed: some call may run');
});

test('several approve rules: an operator over the client, the shortest ttl; a failing one asks', () => {
  const access = policy([
    { name: 'everyone', allow: 'true' },
    { name: 'client-check', approve: 'true', approval_ttl: 60 },
    { name: 'ops-check', approve: 'args.amount > 1', approver: 'operator', approval_ttl: 600 },
    { name: 'broken', approve: 'principal.claims.missing == "x"', approval_ttl: 30 },
  ]);
  const admitted = access.admit(alice, undefined, refund, { amount: 2 });
  assert.ok(admitted.admitted && admitted.approval);
  assert.equal(admitted.approval.approver, 'operator');
  assert.equal(admitted.approval.rule, 'ops-check');
  assert.equal(admitted.approval.ttlMs, 30_000);
  // An approve rule that cannot be evaluated asks for approval, but allows nothing by itself.
  const alone = policy([{ name: 'broken', approve: 'principal.claims.missing == "x"' }]);
  assert.equal(alone.admit(alice, undefined, refund, {}).admitted, false);
});

test('the policy version follows its settings; bad approve settings name the key', () => {
  const version = (rules: unknown[]) => {
    const admitted = policy(rules).admit(alice, undefined, refund, {});
    return admitted.admitted ? admitted.approval?.policyVersion : undefined;
  };
  const one = version([{ name: 'a', approve: 'true' }]);
  assert.equal(version([{ approve: 'true', name: 'a' }]), one, 'key order does not matter');
  assert.notEqual(version([{ name: 'a', approve: 'true', approval_ttl: 60 }]), one);
  const bad = (rule: object, message: RegExp) =>
    assert.throws(
      () => parseAccessSettings({ policy: { rules: [{ name: 'r', ...rule }] } }),
      (error: unknown) => error instanceof ConfigError && message.test(error.message),
    );
  bad(
    { approve: 'true', approver: 'boss' },
    /policy\.rules\.0\.approver: expected client or operator/,
  );
  bad({ approve: 'true', approval_ttl: -1 }, /approval_ttl: expected seconds/);
  bad({ allow: 'true', approver: 'client' }, /approver and approval_ttl belong to an approve rule/);
  bad({ allow: 'true', approve: 'true' }, /exactly one of allow, deny or approve/);
});
