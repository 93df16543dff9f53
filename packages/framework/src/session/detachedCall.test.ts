// A detached call's digest (tool and arguments, sealed into requestState) is computed on first
// use: a keeps-running call that never asks a question never hashes its arguments.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DetachedCall } from './detachedCall.ts';

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
