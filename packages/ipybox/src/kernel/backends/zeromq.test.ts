// Start-up failures and the kernel's tie to its host process, with real processes: a missing
// interpreter, an interpreter without ipykernel, one that exits, one that never becomes a kernel,
// and a host killed with SIGKILL.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { killGroup, waitUntilGone } from '../../__fixtures__/processes.ts';
import { KernelClient } from '../client.ts';
import { KernelError } from '../errors.ts';
import { zmqKernelBackend } from './zeromq.ts';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '__fixtures__');

function clientWith(python: string, options: ConstructorParameters<typeof KernelClient>[0] = {}) {
  return new KernelClient({ ...options, backend: zmqKernelBackend({ python }) });
}

describe('kernel start-up failures', () => {
  it('names the Debian package when the interpreter does not exist, and stays usable', async (t) => {
    const client = clientWith('/nonexistent/python3');
    t.after(() => client.close());
    for (let attempt = 0; attempt < 2; attempt++) {
      await assert.rejects(client.execute('1'), (error) => {
        assert.ok(error instanceof KernelError);
        assert.equal(error.code, 'KERNEL_NOT_FOUND');
        assert.match(error.message, /\/nonexistent\/python3/);
        assert.match(error.message, /apt-get install python3-ipykernel/);
        return true;
      });
    }
  });

  it('reports an interpreter name not found on PATH', async (t) => {
    const client = clientWith('no-such-python3');
    t.after(() => client.close());
    await assert.rejects(client.start(), {
      code: 'KERNEL_NOT_FOUND',
      message: /no-such-python3 not found: .*apt-get install python3-ipykernel/,
    });
  });

  it('names the Debian package when the interpreter has no ipykernel', async (t) => {
    const client = clientWith(join(fixtures, 'python-without-ipykernel.sh'));
    t.after(() => client.close());
    await assert.rejects(client.start(), {
      code: 'KERNEL_NOT_FOUND',
      message: /ipykernel is not installed .*apt-get install python3-ipykernel/,
    });
  });

  it('reports an interpreter that exits at once, with its exit code', async (t) => {
    const client = clientWith('/bin/false');
    t.after(() => client.close());
    await assert.rejects(client.start(), {
      code: 'KERNEL_START_FAILED',
      message: /exited with code 1 during start-up/,
    });
  });

  it('times out a kernel that never becomes ready, kills it, and says the budget is separate', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'mcpbox-never-ready-'));
    const pidFile = join(dir, 'pid');
    const client = clientWith(join(fixtures, 'never-ready-python.sh'), {
      startTimeout: 1500,
      env: { MCPBOX_TEST_PIDFILE: pidFile },
    });
    t.after(async () => {
      await client.close();
      await rm(dir, { recursive: true, force: true });
    });
    await assert.rejects(client.execute('1', { timeout: 60_000 }), {
      code: 'KERNEL_START_TIMEOUT',
      message: /start-up timeout of 1.5 s \(execution timeouts are separate\)/,
    });
    const pid = Number(readFileSync(pidFile, 'utf8'));
    assert.ok(await waitUntilGone(pid), 'the hanging process was killed');
  });

  it('refuses a working directory that does not exist', async (t) => {
    const client = new KernelClient({ cwd: '/nonexistent/dir' });
    t.after(() => client.close());
    await assert.rejects(client.start(), {
      code: 'KERNEL_START_FAILED',
      message: /working directory \/nonexistent\/dir does not exist/,
    });
  });
});

describe('kernel and host process', () => {
  it('ends the kernel when its host process is killed with SIGKILL', async (t) => {
    const host = spawn(process.execPath, ['--import', 'tsx', join(fixtures, 'kernelParent.ts')], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let kernelPid: number | undefined;
    t.after(() => {
      host.kill('SIGKILL');
      if (kernelPid) killGroup(kernelPid);
    });
    const lines = createInterface({ input: host.stdout! });
    for await (const line of lines) {
      kernelPid = JSON.parse(line).kernelPid;
      break;
    }
    assert.ok(kernelPid, 'the host started a kernel');
    process.kill(kernelPid, 0); // alive now
    host.kill('SIGKILL');
    assert.ok(await waitUntilGone(kernelPid), 'the kernel did not outlive its host');
  });
});
