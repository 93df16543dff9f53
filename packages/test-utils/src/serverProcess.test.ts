/**
 * A process a test starts through `spawnTiedToTest` ends with the test runner that started it,
 * even when that runner is SIGKILLed and no `after` hook runs. Real processes: a Node parent
 * that spawns `sleep 300` and is then killed.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { isAlive, killAll, waitUntilGone } from './processGroups.ts';

const HELPER = fileURLToPath(new URL('./serverProcess.ts', import.meta.url));

/** Starts a Node parent that spawns `sleep 300` with `how`; returns both pids. */
async function parentWithSleep(how: 'tied' | 'plain') {
  const script = `
    import { spawn } from 'node:child_process';
    import { spawnTiedToTest } from ${JSON.stringify(HELPER)};
    const child = ${how === 'tied' ? 'spawnTiedToTest' : 'spawn'}('sleep', ['300'], { stdio: 'ignore', detached: true });
    child.once('spawn', () => console.log(child.pid));
    setInterval(() => {}, 1000);`;
  const parent = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(parent.stdout, 'data')) as [Buffer];
  return { parent, sleepPid: Number(line.toString().trim()) };
}

test('a tied child dies when its parent is SIGKILLed; a plain one would outlive it', async (t) => {
  const tied = await parentWithSleep('tied');
  const plain = await parentWithSleep('plain');
  t.after(() => killAll([tied.sleepPid, plain.sleepPid, tied.parent.pid!, plain.parent.pid!]));
  assert.ok(isAlive(tied.sleepPid) && isAlive(plain.sleepPid), 'both children run');

  tied.parent.kill('SIGKILL');
  plain.parent.kill('SIGKILL');
  await Promise.all([once(tied.parent, 'exit'), once(plain.parent, 'exit')]);

  assert.deepEqual(await waitUntilGone([tied.sleepPid], 10_000), [], 'the tied child is gone');
  assert.ok(isAlive(plain.sleepPid), 'the plain child outlived its parent: the test can tell');
});
