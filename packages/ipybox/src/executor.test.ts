// CodeExecutor, the facade, against one real kernel: kernelEnv and workingDir reach the kernel,
// stream() with and without chunks, cancel(), reset(), stop().
import assert from 'node:assert/strict';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { killGroup } from './__fixtures__/processes.ts';
import { CodeExecutor } from './executor.ts';

describe('CodeExecutor', () => {
  let dir: string;
  let executor: CodeExecutor;
  const pids = new Set<number>();

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mcpbox-executor-test-'));
    executor = new CodeExecutor({
      kernelEnv: { MCPBOX_GREETING: 'hello from the host' },
      workingDir: dir,
      imagesDir: join(dir, 'images'),
    });
    await executor.start();
    pids.add(executor.kernelPid!);
  });
  after(async () => {
    await executor?.stop();
    for (const pid of pids) killGroup(pid);
    await rm(dir, { recursive: true, force: true });
  });

  it('passes kernelEnv and workingDir to the kernel', async () => {
    const result = await executor.execute(
      'import os\nprint(os.environ["MCPBOX_GREETING"])\nprint(os.getcwd())',
    );
    assert.equal(result.stdout, `hello from the host\n${await realpath(dir)}\n`);
  });

  it('streams only the result by default and chunks on request', async () => {
    const code = 'print("a", flush=True)\nprint("b", flush=True)';
    const plain = [];
    for await (const item of executor.stream(code)) plain.push(item.kind);
    assert.deepEqual(plain, ['result']);
    const chunked = [];
    for await (const item of executor.stream(code, { chunks: true })) chunked.push(item.kind);
    assert.deepEqual(chunked, ['stream', 'stream', 'result']);
  });

  it('cancel() interrupts the running cell and keeps the state', async () => {
    await executor.execute('mark = "kept"');
    const running = executor.execute('import time\ntime.sleep(30)');
    setTimeout(() => executor.cancel(), 200);
    await assert.rejects(running, { code: 'EXECUTION_CANCELLED' });
    assert.equal((await executor.execute('mark')).text, "'kept'");
  });

  it('reset() clears the state with a new kernel process', async () => {
    await executor.execute('mark = "gone soon"');
    const before = executor.kernelPid!;
    await executor.reset();
    pids.add(executor.kernelPid!);
    assert.notEqual(executor.kernelPid, before);
    assert.throws(() => process.kill(before, 0), { code: 'ESRCH' });
    assert.equal((await executor.execute('"mark" in globals()')).text, 'False');
  });

  it('stop() ends the kernel and refuses further calls', async () => {
    const pid = executor.kernelPid!;
    await executor.stop();
    assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' });
    await assert.rejects(executor.execute('1'), { code: 'CLIENT_CLOSED' });
  });
});
