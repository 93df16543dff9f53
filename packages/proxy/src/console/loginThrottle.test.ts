// LoginThrottle on a clock of its own: five free wrong tokens, then lock-outs that double up to
// a cap, a right token clearing the count, and an address forgotten an hour after its last try.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FREE_FAILURES, LoginThrottle } from './loginThrottle.ts';

test('lock-outs start after the free failures, double, and stop at 15 minutes', () => {
  let now = 0;
  const throttle = new LoginThrottle(() => now);
  for (let i = 1; i < FREE_FAILURES; i++) {
    throttle.failed('10.0.0.1');
    assert.equal(throttle.waitMs('10.0.0.1'), 0, `after ${i} failures`);
  }
  const waits: number[] = [];
  for (let i = 0; i < 12; i++) {
    throttle.failed('10.0.0.1');
    waits.push(throttle.waitMs('10.0.0.1'));
    now += waits.at(-1) as number;
  }
  assert.deepEqual(waits.slice(0, 4), [5000, 10_000, 20_000, 40_000]);
  assert.equal(waits.at(-1), 15 * 60 * 1000);
  assert.equal(throttle.waitMs('10.0.0.2'), 0, 'another address is not affected');
});

test('a right token clears the count; an address is forgotten an hour after its last try', () => {
  let now = 0;
  const throttle = new LoginThrottle(() => now);
  for (let i = 0; i < FREE_FAILURES - 1; i++) throttle.failed('a');
  throttle.succeeded('a');
  throttle.failed('a');
  assert.equal(throttle.waitMs('a'), 0, 'counting from one again');
  for (let i = 0; i < FREE_FAILURES - 2; i++) throttle.failed('a');
  now += 60 * 60 * 1000 + 1;
  throttle.failed('a');
  assert.equal(throttle.waitMs('a'), 0, 'the old failures were forgotten');
});
