// A detached call's digest (tool and arguments, sealed into requestState) is computed on first
// use: a keeps-running call that never asks a question never hashes its arguments. Call ids come
// from a pool of random bytes: each is new, 192 bits, across refills of the pool.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DetachedCall, newCallId } from './detachedCall.ts';

test('the call digest is computed once, on first use', () => {
  let computed = 0;
  const detached = new DetachedCall({
    principal: 'p',
    call: () => {
      computed += 1;
      return 'digest';
    },
  });
  assert.equal(computed, 0, 'not computed at start');
  assert.equal(detached.call, 'digest');
  assert.equal(detached.call, 'digest');
  assert.equal(computed, 1);
  assert.equal(new DetachedCall({ principal: 'p', call: 'given' }).call, 'given');
});

test('call ids are 24 random bytes each, never repeated across refills of their pool', () => {
  const ids = Array.from({ length: 1000 }, () => newCallId()); // the pool holds 128
  assert.equal(new Set(ids).size, ids.length);
  for (const id of ids) assert.equal(Buffer.from(id, 'base64url').length, 24, id);
  const detached = new DetachedCall({ principal: 'p', call: 'c' });
  assert.notEqual(detached.id, new DetachedCall({ principal: 'p', call: 'c' }).id);
  assert.equal(Buffer.from(detached.id, 'base64url').length, 24);
});
