/**
 * The start-up work the `ipybox` command begins before its modules load is handed to the plugin
 * once: the begun Python probe and sweep are the ones `openIpybox` awaits (no second Python
 * process, no second sweep), and anything after that does the work anew, as without the command.
 * A real interpreter stand-in (a script that counts its runs) and real leftovers of a dead owner
 * in a private temp directory.
 */
import assert from 'node:assert/strict';
import { readlinkSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { interpreterPath } from '../kernel/pythonProbe.ts';
import { beginStartupWork, pythonProbe, sweepLeftovers } from './startupWork.ts';

async function privateDir(t: { after: (fn: () => Promise<void>) => void }, prefix: string) {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Begins the work as the command does, and takes what the test leaves when it ends, so no probe
 * process outlives the test and no begun sweep is taken by the next test.
 */
function begin(t: { after: (fn: () => Promise<void>) => void }, python: string | undefined) {
  beginStartupWork(python);
  t.after(async () => {
    await pythonProbe(interpreterPath(python));
    await sweepLeftovers();
  });
}

/** A kernel directory whose recorded owner is gone (its start time never matches a live one). */
async function deadOwnersDir(parent: string, name: string): Promise<string> {
  const dir = join(parent, `mcpbox-kernel-1-${name}`);
  await mkdir(dir);
  const owner = { pid: 1, started: 'never', pidNamespace: readlinkSync('/proc/self/ns/pid') };
  await writeFile(join(dir, 'owner'), JSON.stringify(owner));
  return dir;
}

// Every sweep here looks at a private temp directory, never at other processes' files.
const temp = await mkdtemp(join(tmpdir(), 'ipybox-startup-tmp-'));
const savedTmpdir = process.env.TMPDIR;
process.env.TMPDIR = temp;
after(async () => {
  if (savedTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmpdir;
  await rm(temp, { recursive: true, force: true });
});

test('the begun sweep is taken once; the next sweep looks again', async (t) => {
  const first = await deadOwnersDir(temp, 'first');
  begin(t, undefined);
  assert.deepEqual(await sweepLeftovers(), [first]);
  // Left after the begun sweep: only a sweep that looks again finds it.
  const second = await deadOwnersDir(temp, 'second');
  assert.deepEqual(await sweepLeftovers(), [second]);
  assert.deepEqual(await readdir(temp), []);
});

test('the begun Python probe is taken once; the next check probes anew', async (t) => {
  const dir = await privateDir(t, 'ipybox-startup-probe-');
  const runs = join(dir, 'runs');
  const python = join(dir, 'python');
  await writeFile(python, `#!/bin/sh\necho run >> '${runs}'\necho ipykernel\n`);
  await chmod(python, 0o755);
  const runCount = async () =>
    (await readFile(runs, 'utf8').catch(() => '')).split('\n').length - 1;

  beginStartupWork(python);
  await sweepLeftovers();
  assert.equal((await pythonProbe(python)).stdout, 'ipykernel');
  assert.equal(await runCount(), 1, 'the begun probe answered: no second run');
  assert.equal((await pythonProbe(python)).stdout, 'ipykernel');
  assert.equal(await runCount(), 2, 'taken once: a later check runs the interpreter again');
});

test('a probe begun for another interpreter is not taken for this one', async (t) => {
  const dir = await privateDir(t, 'ipybox-startup-other-');
  begin(t, join(dir, 'not-this-python'));
  const outcome = await pythonProbe('/bin/false');
  assert.equal(outcome.stdout, '');
  assert.match(outcome.failure, /Command failed: \/bin\/false/, 'the probe of /bin/false ran');
});
