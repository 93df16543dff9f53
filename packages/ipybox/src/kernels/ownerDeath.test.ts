/**
 * A kernel, and everything its cells started, ends with the `ipybox` process that owns it —
 * however that process ends: SIGKILL over stdio or HTTP (no handler runs), or SIGTERM to
 * `ipybox --http`. And what a SIGKILLed owner could not remove (the kernel's private directory
 * with its signing key) is swept by the next ipybox that starts.
 *
 * Real `ipybox` processes, real kernels, a real `sleep 300` started by a cell; each run gets its
 * own TMPDIR, so the sweep is observed without touching other processes' files.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { isGone, killGroup, waitUntilGone } from '../__fixtures__/processes.ts';
import { makeOwnedDir } from '../ownedDirs.ts';
import { nobodyListens } from '../sandbox/staleSockets.ts';
import {
  runCell,
  startHttpIpybox,
  startStdioIpybox,
  tempWorkspace,
  textOf,
} from '../server/testing.ts';

/** Starts `sleep 300` from a cell; returns the kernel's pid and the sleep's. */
const START_SLEEP =
  "import os, subprocess\np = subprocess.Popen(['sleep', '300'])\nprint(os.getpid(), p.pid)";

interface Run {
  workspace: string;
  /** The TMPDIR of the ipybox processes of this run. */
  temp: string;
  env: Record<string, string>;
  /** Pids to SIGKILL (with their groups) when the test ends, whatever happened. */
  leftovers: number[];
}

async function newRun(t: { after(fn: () => unknown): void }): Promise<Run> {
  const ws = await tempWorkspace('ipybox-owner-');
  const temp = await mkdtemp(join(tmpdir(), 'ipybox-owner-tmp-'));
  const run: Run = { workspace: ws.dir, temp, env: { TMPDIR: temp }, leftovers: [] };
  t.after(async () => {
    for (const pid of run.leftovers) {
      killGroup(pid);
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    await ws.remove();
    await rm(temp, { recursive: true, force: true });
  });
  return run;
}

async function startSleep(run: Run, client: Parameters<typeof runCell>[0]) {
  const result = await runCell(client, START_SLEEP);
  assert.notEqual(result.isError, true, textOf(result));
  const pids = /^(\d+) (\d+)$/m.exec(textOf(result));
  assert.ok(pids, `no pids in ${JSON.stringify(result)}`);
  const [kernel, sleep] = [Number(pids[1]), Number(pids[2])];
  run.leftovers.push(kernel, sleep);
  assert.ok(!isGone(kernel) && !isGone(sleep), 'kernel and sleep run');
  return { kernel, sleep };
}

async function assertAllGone(pids: Record<string, number>, after: string): Promise<void> {
  for (const [what, pid] of Object.entries(pids)) {
    assert.ok(await waitUntilGone(pid, 300), `the ${what} (pid ${pid}) outlived ${after}`);
  }
}

const REPO = fileURLToPath(new URL('../../../..', import.meta.url));

function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** Polls until connecting to the Unix socket is refused; false if it still answers after 30 s. */
async function nobodyListensWithin(path: string): Promise<boolean> {
  for (let i = 0; i < 300; i++) {
    if (!existsSync(path) || (await nobodyListens(path))) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

const kernelDirs = async (temp: string) =>
  (await readdir(temp)).filter((name) => name.startsWith('mcpbox-kernel-'));

describe('kernels end with their owner', () => {
  /** Starts ipybox one way; returns its pid and a client. */
  const starters = {
    'over stdio': async (run: Run, t: { after(fn: () => unknown): void }) => {
      const box = await startStdioIpybox(run.workspace, { env: run.env });
      t.after(() => box.close());
      return { owner: box.transport.pid!, client: box.client };
    },
    '--http': async (run: Run, t: { after(fn: () => unknown): void }) => {
      const box = await startHttpIpybox(run.workspace, { env: run.env });
      t.after(() => box.close());
      return { owner: box.process.pid!, client: await box.connect() };
    },
  };

  for (const [how, start] of Object.entries(starters)) {
    test(`SIGKILL of ipybox ${how} ends its kernel and the process a cell started`, async (t) => {
      const run = await newRun(t);
      const { owner, client } = await start(run, t);
      run.leftovers.push(owner);
      const { kernel, sleep } = await startSleep(run, client);
      process.kill(owner, 'SIGKILL');
      await assertAllGone({ ipybox: owner, kernel, 'sleep a cell started': sleep }, 'a SIGKILL');
    });
  }

  test('SIGTERM to ipybox --http ends it, its kernels and what cells started, and removes their files', async (t) => {
    const run = await newRun(t);
    const box = await startHttpIpybox(run.workspace, { env: run.env });
    t.after(() => box.close());
    const owner = box.process.pid!;
    run.leftovers.push(owner);
    // Two kernels (a 2025 session and a 2026 client), one of them in a state that ignores
    // SIGTERM, with a child that ignores it too.
    const modern = await box.connect({ versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const legacy = await box.connect();
    const first = await startSleep(run, legacy);
    const second = await startSleep(run, modern);
    const stubborn = await runCell(
      legacy,
      "import signal, subprocess\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nq = subprocess.Popen(['python3', '-c', 'import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(300)'])\nprint(q.pid)",
    );
    const stubbornPid = Number(/^\d+$/m.exec(textOf(stubborn))?.[0]);
    assert.ok(stubbornPid > 0, `no pid in ${JSON.stringify(stubborn)}`);
    run.leftovers.push(stubbornPid);
    assert.ok((await kernelDirs(run.temp)).length >= 2);

    const exit = new Promise<number | null>((resolve) =>
      box.process.once('exit', (code) => resolve(code)),
    );
    process.kill(owner, 'SIGTERM');
    assert.equal(await exit, 0);
    await assertAllGone(
      {
        'first kernel': first.kernel,
        'sleep of the first kernel': first.sleep,
        'second kernel': second.kernel,
        'sleep of the second kernel': second.sleep,
        'child ignoring SIGTERM': stubbornPid,
      },
      'a SIGTERM',
    );
    assert.deepEqual(await kernelDirs(run.temp), []);
  });

  test('SIGTERM to `npx ipybox --http` ends ipybox, its kernel and what a cell started', async (t) => {
    const run = await newRun(t);
    // As the README starts it: npx runs ipybox under npm and `sh -c`, which pass no signal on.
    const npx = spawn(
      'npx',
      ['--prefix', REPO, 'ipybox', '--workspace', run.workspace, '--http', '0'],
      { cwd: run.temp, env: { ...process.env, ...run.env }, detached: true, stdio: 'pipe' },
    );
    run.leftovers.push(npx.pid!);
    const url = await new Promise<string>((resolve, reject) => {
      let stderr = '';
      npx.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
        const match = /ipybox MCP endpoint: (\S+)/.exec(stderr);
        if (match) resolve(match[1]);
      });
      npx.once('exit', (code) => reject(new Error(`npx exited (${code}):\n${stderr}`)));
    });
    const client = new Client({ name: 'ipybox-npx-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    t.after(() => client.close());
    const { kernel, sleep } = await startSleep(run, client);
    const ipybox = parentOf(kernel);
    run.leftovers.push(ipybox);
    assert.notEqual(ipybox, npx.pid, 'ipybox runs below npx');

    process.kill(npx.pid!, 'SIGTERM');
    await assertAllGone({ ipybox, kernel, 'sleep a cell started': sleep }, 'a SIGTERM to npx');
  });

  test('the next ipybox removes what SIGKILLed ones left in the temp directory, and only that', async (t) => {
    const run = await newRun(t);
    const start = async (args: string[]) => {
      const box = await startStdioIpybox(run.workspace, { env: run.env, args });
      t.after(() => box.close());
      const owner = box.transport.pid!;
      run.leftovers.push(owner);
      const listing = await runCell(box.client, "import os\nsorted(os.listdir('.'))");
      assert.notEqual(listing.isError, true, textOf(listing));
      return { owner, listing: textOf(listing) };
    };
    // Both run before either dies: a starting ipybox sweeps, and must find these alive.
    const plain = await start([]);
    const sandboxed = await start(['--sandbox']);
    // The tool server's socket of a sandboxed kernel is not in the user's workspace.
    assert.doesNotMatch(sandboxed.listing, /sock/);
    for (const { owner } of [plain, sandboxed]) {
      process.kill(owner, 'SIGKILL');
      assert.ok(await waitUntilGone(owner, 300));
    }
    const left = await readdir(run.temp);
    for (const prefix of [
      `mcpbox-kernel-${plain.owner}-`,
      `mcpbox-sandbox-${sandboxed.owner}-`,
      `mcpbox-tools-${sandboxed.owner}-`,
      'srt-mux-',
      'claude-http-',
    ]) {
      assert.ok(
        left.some((name) => name.startsWith(prefix)),
        `${prefix}* left: ${left.join(', ')}`,
      );
    }
    // The bridges (socat) die with their owner, but maybe a moment later: wait until nothing
    // listens on the sockets left, as the sweep requires.
    for (const name of left.filter((n) => n.endsWith('.sock'))) {
      assert.ok(await nobodyListensWithin(join(run.temp, name)), `${name} still listened on`);
    }
    // A live owner's directory (this test process's) and one that names no owner stay.
    const live = await makeOwnedDir(run.temp, 'mcpbox-kernel-');
    await mkdir(join(run.temp, 'mcpbox-kernel-unknown'));

    const next = await startStdioIpybox(run.workspace, { env: run.env });
    t.after(() => next.close());
    assert.deepEqual(
      (await readdir(run.temp)).filter((name) => !name.startsWith('tsx-')).sort(),
      [live.slice(run.temp.length + 1), 'mcpbox-kernel-unknown'].sort(),
    );
  });
});
