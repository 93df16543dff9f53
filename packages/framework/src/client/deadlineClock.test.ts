// Upstream request deadlines share one timer (deadlineClock.ts): each still ends on its own
// time, whatever else is in flight, and a process with no request in flight is not held open.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { RequestDeadline } from './requestControl.ts';

/** Resolves with the reason when `deadline` ends early. */
function ended(deadline: RequestDeadline): Promise<unknown> {
  return new Promise((resolve) => deadline.onAbort(resolve));
}

describe('request deadlines on the shared clock', () => {
  test('a short deadline started after a long one ends first; the long one runs on', async () => {
    const long = new RequestDeadline(60_000, undefined);
    const short = new RequestDeadline(30, undefined);
    assert.equal(await ended(short), 'timeout');
    assert.equal(short.timedOut, true);
    assert.equal(long.aborted, false);
    long.dispose();
  });

  test('of many in flight, exactly the ones whose time has come end', async () => {
    const quick = [20, 40, 60].map((ms) => new RequestDeadline(ms, undefined));
    const slow = new RequestDeadline(60_000, undefined);
    const done = new RequestDeadline(20, undefined);
    done.dispose(); // answered in time: never ends early
    await Promise.all(quick.map(ended));
    assert.deepEqual(
      quick.map((d) => d.timedOut),
      [true, true, true],
    );
    await new Promise((resolve) => setTimeout(resolve, 40));
    assert.equal(done.aborted, false);
    assert.equal(slow.aborted, false);
    slow.dispose();
  });

  test('touch moves the end later; a hold stops the clock until released', async () => {
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const touched = new RequestDeadline(1_000, undefined);
    await sleep(600);
    touched.touch(); // a progress notification: the full time again from here
    await sleep(600);
    assert.equal(touched.aborted, false, 'its first end has passed, its touched one has not');
    touched.dispose();

    const held = new RequestDeadline(60, undefined);
    const release = held.hold();
    await sleep(150);
    assert.equal(held.aborted, false, 'held: the upstream waits for our caller');
    release();
    assert.equal(await ended(held), 'timeout');
  });

  test("the caller's abort ends the deadline at once, with the caller's reason", async () => {
    const caller = new AbortController();
    const deadline = new RequestDeadline(60_000, caller.signal);
    const reason = ended(deadline);
    caller.abort('stop');
    assert.equal(await reason, 'stop');
    assert.equal(deadline.timedOut, false);
    assert.equal(deadline.signal.aborted, true);
  });

  test('a process whose requests are done exits, though their deadlines were far off', async () => {
    const program = `
      import { RequestDeadline } from ${JSON.stringify(new URL('./requestControl.ts', import.meta.url).href)};
      const deadlines = [new RequestDeadline(600_000, undefined), new RequestDeadline(300_000, undefined)];
      setTimeout(() => { for (const d of deadlines) d.dispose(); console.log('answered'); }, 20);
    `;
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', program],
      { encoding: 'utf8', timeout: 30_000 },
    );
    assert.equal(child.signal, null, 'the process was held open by a finished deadline');
    assert.equal(child.status, 0, child.stderr);
    assert.equal(child.stdout.trim(), 'answered');
  });

  test('a request in flight keeps the process up until its deadline ends it', async () => {
    const program = `
      import { RequestDeadline } from ${JSON.stringify(new URL('./requestControl.ts', import.meta.url).href)};
      const deadline = new RequestDeadline(50, undefined);
      deadline.onAbort((reason) => console.log('ended:', reason));
    `;
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', program],
      { encoding: 'utf8', timeout: 30_000 },
    );
    assert.equal(child.status, 0, child.stderr);
    assert.equal(child.stdout.trim(), 'ended: timeout');
  });
});
