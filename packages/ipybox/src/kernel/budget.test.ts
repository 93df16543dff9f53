import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { TimeoutBudget } from './budget.ts';

/** Starts `budget` and resolves when it expires. */
const expiry = (budget: TimeoutBudget) =>
  new Promise<void>((resolve) => budget.start(() => resolve()));

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

  it('budgets running at once each expire, the earlier first (one shared timer)', async () => {
    const expired: string[] = [];
    const later = new TimeoutBudget(80);
    const sooner = new TimeoutBudget(20);
    await Promise.all([
      expiry(later).then(() => expired.push('later')),
      expiry(sooner).then(() => expired.push('sooner')),
    ]);
    assert.deepEqual(expired, ['sooner', 'later']);
  });

  it('a budget whose deadline is later than the armed one still expires', async () => {
    // The first budget leaves the shared timer armed for its deadline when it stops; the
    // second waits on that timer, which finds nothing due and re-arms for the second.
    const first = new TimeoutBudget(20);
    first.start(() => assert.fail('a stopped budget expired'));
    first.stop();
    await expiry(new TimeoutBudget(60));
    // And one whose deadline is earlier than the armed one re-arms it.
    const long = new TimeoutBudget(60_000);
    long.start(() => assert.fail('the long budget expired'));
    await expiry(new TimeoutBudget(20));
    long.stop();
  });

  it('a paused budget keeps its remaining time and expires after resuming', async () => {
    const budget = new TimeoutBudget(400);
    const expired = expiry(budget);
    budget.pause();
    const left = budget.remaining;
    assert.ok(left > 0 && left <= 400);
    await sleep(60);
    assert.equal(budget.remaining, left);
    budget.resume();
    await expired;
    assert.equal(budget.remaining, 0);
  });

  it('a stopped budget does not keep the process alive', async () => {
    // The shared timer stays armed after the budget stops, for the next budget to reuse: it
    // must not hold the event loop open meanwhile (a process would wait for the deadline).
    const budgetModule = fileURLToPath(new URL('./budget.ts', import.meta.url));
    const script = `import { TimeoutBudget } from ${JSON.stringify(budgetModule)};
const budget = new TimeoutBudget(2 ** 31 - 1);
budget.start(() => {});
budget.stop();`;
    await new Promise<void>((resolve, reject) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', script],
        { timeout: 120_000 },
        (error) => (error ? reject(error) : resolve()),
      );
    });
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
