// Kernel lifecycle against real ipykernels: death from outside, heartbeat loss, reset, stop,
// several kernels side by side, the ipc transport. Each test owns its client and closes it.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { isGone, waitUntilGone } from '../__fixtures__/processes.ts';
import { zmqKernelBackend } from './backends/zeromq.ts';
import { KernelClient, type KernelClientOptions } from './client.ts';
import { KernelError } from './errors.ts';

/** A client whose kernel (whichever is current) is stopped after the test, pass or fail. */
function newClient(t: TestContext, options: KernelClientOptions = {}): KernelClient {
  const client = new KernelClient(options);
  t.after(() => client.close());
  return client;
}

/** The kernel's private directory (parent of its IPYTHONDIR). */
async function kernelDir(client: KernelClient): Promise<string> {
  const result = await client.execute(
    'import os\nprint(os.path.dirname(os.environ["IPYTHONDIR"]))',
  );
  return result.stdout.trim();
}

describe('kernel lifecycle', () => {
  it('fails the running call when the kernel is killed from outside, then starts a new kernel', async (t) => {
    const client = newClient(t);
    await client.execute('x = 1');
    const pid = client.pid!;
    const running = client.execute('import time\nprint("working", flush=True)\ntime.sleep(60)');
    // Kill only once the cell runs, so the failure is a death mid-cell.
    await new Promise((resolve) => setTimeout(resolve, 300));
    process.kill(pid, 'SIGKILL');
    await assert.rejects(running, (error) => {
      assert.ok(error instanceof KernelError);
      assert.equal(error.code, 'KERNEL_DIED');
      assert.match(error.message, /kernel died \(killed by SIGKILL\)/);
      assert.match(error.message, /next call starts a new kernel/);
      assert.equal(error.output?.stdout, 'working\n');
      return true;
    });
    assert.ok(isGone(pid));
    const after = await client.execute('"x" in globals()');
    assert.equal(after.text, 'False', 'a fresh kernel without the old state');
    assert.notEqual(client.pid, pid);
  });

  it('notices os._exit and a segfault in a cell', async (t) => {
    const client = newClient(t);
    await assert.rejects(client.execute('import os\nos._exit(3)'), {
      code: 'KERNEL_DIED',
      message: /exited with code 3/,
    });
    await assert.rejects(client.execute('import ctypes\nctypes.string_at(0)'), {
      code: 'KERNEL_DIED',
      message: /killed by SIGSEGV/,
    });
    assert.equal((await client.execute('21 * 2')).text, '42');
  });

  it('declares a kernel that stops answering heartbeats dead and kills it', async (t) => {
    const client = newClient(t, {
      backend: zmqKernelBackend({ heartbeatInterval: 100, heartbeatTimeout: 1000 }),
    });
    await client.start();
    const pid = client.pid!;
    const running = client.execute('import time\ntime.sleep(60)');
    await new Promise((resolve) => setTimeout(resolve, 200));
    process.kill(pid, 'SIGSTOP'); // frozen, not dead: only the heartbeat can tell
    await assert.rejects(running, { code: 'KERNEL_DIED', message: /no heartbeat for 1000 ms/ });
    assert.ok(await waitUntilGone(pid), 'the frozen kernel was killed');
    assert.equal((await client.execute('"alive"')).text, "'alive'");
  });

  it('restarts a kernel whose cell ignores the interrupt after its timeout', async (t) => {
    const client = newClient(t, { interruptTimeout: 500 });
    await client.execute('state = 1');
    const pid = client.pid!;
    const stubborn =
      'import time\nwhile True:\n    try:\n        time.sleep(0.01)\n    except KeyboardInterrupt:\n        pass';
    await assert.rejects(client.execute(stubborn, { timeout: 200 }), (error) => {
      assert.ok(error instanceof KernelError);
      assert.equal(error.code, 'EXECUTION_TIMEOUT');
      assert.match(error.message, /kernel was restarted: its state is lost/);
      return true;
    });
    assert.ok(await waitUntilGone(pid));
    assert.equal((await client.execute('"state" in globals()')).text, 'False');
  });

  it('falls back to SIGINT when the control channel does not answer an interrupt', async (t) => {
    // Fault injection around a real kernel: a control channel that swallows messages cannot be
    // produced with ipykernel itself, whose control thread always answers.
    const real = zmqKernelBackend();
    const client = newClient(t, {
      backend: {
        name: 'zeromq, control channel dropped',
        async start(options) {
          const kernel = await real.start(options);
          const send = kernel.channels.send.bind(kernel.channels);
          kernel.channels.send = (channel, message) =>
            channel === 'control' ? Promise.resolve() : send(channel, message);
          return kernel;
        },
      },
    });
    await client.start();
    const running = client.execute('import time\ntime.sleep(60)');
    await new Promise((resolve) => setTimeout(resolve, 200));
    await client.interrupt();
    await assert.rejects(running, { name: 'CodeExecutionError', ename: 'KeyboardInterrupt' });
  });

  it('reset() gives a fresh state and ends the old kernel process', async (t) => {
    const client = newClient(t);
    await client.execute('secret = 1');
    const oldPid = client.pid!;
    await client.reset();
    assert.throws(() => process.kill(oldPid, 0), { code: 'ESRCH' });
    assert.notEqual(client.pid, oldPid);
    assert.equal((await client.execute('"secret" in globals()')).text, 'False');
  });

  it('useBackend() leaves the running kernel alone and starts the next one with it', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'mcpbox-backend-test-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const python = join(dir, 'python3');
    await symlink('/usr/bin/python3', python);
    const client = newClient(t);
    const executable = async () => (await client.execute('import sys\nsys.executable')).text;
    assert.equal(await executable(), "'/usr/bin/python3'");
    client.useBackend(zmqKernelBackend({ python }));
    assert.equal(await executable(), "'/usr/bin/python3'", 'the running kernel stays');
    await client.reset();
    assert.equal(await executable(), `'${python}'`);
  });

  it('close() ends the kernel, its subprocesses and its files', async (t) => {
    const client = newClient(t);
    const dir = await kernelDir(client);
    assert.ok(existsSync(join(dir, 'connection.json')));
    const child = await client.execute(
      'import subprocess\np = subprocess.Popen(["sleep", "600"])\nprint(p.pid)',
    );
    const childPid = Number(child.stdout);
    const pid = client.pid!;
    await client.close();
    assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' });
    assert.ok(await waitUntilGone(childPid), 'the subprocess in the kernel group is gone');
    assert.ok(!existsSync(dir), 'the private directory is removed');
    await assert.rejects(client.execute('1'), { code: 'CLIENT_CLOSED' });
  });

  it('runs several kernels side by side with separate state', async (t) => {
    const [a, b] = [newClient(t), newClient(t)];
    await Promise.all([a.execute('who = "a"'), b.execute('who = "b"')]);
    assert.notEqual(a.pid, b.pid);
    const sleep = 'import time\ntime.sleep(0.5)\nwho';
    const [ra, rb] = await Promise.all([a.execute(sleep), b.execute(sleep)]);
    assert.equal(ra.text, "'a'");
    assert.equal(rb.text, "'b'");
  });

  it('talks over ipc sockets in the private directory, in the given working directory, through a command wrapper', async (t) => {
    const cwd = await mkdtemp(join(tmpdir(), 'mcpbox-cwd-'));
    t.after(() => rm(cwd, { recursive: true, force: true }));
    const client = newClient(t, {
      backend: zmqKernelBackend({
        transport: 'ipc',
        wrap: (argv) => ['/usr/bin/env', 'MCPBOX_WRAPPED=yes', ...argv],
      }),
      cwd,
    });
    const dir = await kernelDir(client);
    const info = await client.execute(
      `import json, os\nc = json.load(open(${JSON.stringify(join(dir, 'connection.json'))}))\nprint(c["transport"], c["ip"], os.getcwd())`,
    );
    assert.equal(info.stdout, `ipc ${join(dir, 'k')} ${await realpath(cwd)}\n`);
    assert.ok(existsSync(`${join(dir, 'k')}-${1}`), 'socket files beside the connection file');
    const wrapped = await client.execute('os.environ.get("MCPBOX_WRAPPED")');
    assert.equal(wrapped.text, "'yes'", 'the command went through the wrapper');
  });
});
