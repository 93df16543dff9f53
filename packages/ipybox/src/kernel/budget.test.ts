import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { TimeoutBudget } from './budget.ts';

describe('TimeoutBudget', () => {
  it('expires once its allowance is used', async () => {
    const budget = new TimeoutBudget(20);
    await new Promise<void>((resolve) => budget.start(resolve));
    assert.equal(budget.remaining, 0);
  });

  it('does not run while any pause is open (pauses nest)', async () => {
    const budget = new TimeoutBudget(20);
    let expired = false;
    let onExpired = () => {};
    const expiry = new Promise<void>((resolve) => {
      onExpired = resolve;
    });
    budget.pause();
    budget.pause();
    budget.start(() => {
      expired = true;
      onExpired();
    });
    budget.resume(); // one pause still open
    await sleep(60);
    assert.equal(expired, false);
    assert.equal(budget.remaining, 20);
    budget.resume();
    await expiry;
  });

  it('never fires after stop()', async () => {
    const budget = new TimeoutBudget(20);
    let expired = false;
    budget.start(() => {
      expired = true;
    });
    budget.stop();
    budget.resume(); // stray resume: ignored
    await sleep(60);
    assert.equal(expired, false);
  });

  it('refuses bad allowances and a second execution', () => {
    for (const bad of [0, -1, Number.NaN, 2 ** 31, '5' as unknown as number]) {
      assert.throws(() => new TimeoutBudget(bad), RangeError);
    }
    const budget = new TimeoutBudget(1000);
    budget.start(() => {});
    assert.throws(() => budget.start(() => {}), /serves one execution/);
    budget.stop();
  });
});
