// KernelClient against one real ipykernel (Debian's /usr/bin/python3), shared by the tests in
// this file where state does not matter; lifecycle tests that kill kernels are in lifecycle.test.ts.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { TimeoutBudget } from './budget.ts';
import { KernelClient } from './client.ts';
import { CodeExecutionError, KernelError } from './errors.ts';
import type { ExecutionResult } from './execution.ts';
import type { ExecutionChunk } from './output.ts';

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

describe('KernelClient', () => {
  let dir: string;
  let client: KernelClient;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mcpbox-client-test-'));
    client = new KernelClient({ imagesDir: join(dir, 'images'), interruptTimeout: 10_000 });
    await client.start();
  });
  after(async () => {
    await client?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps state across calls and returns the value of the last expression', async () => {
    await client.execute('counter = 40');
    const result = await client.execute('counter += 2\ncounter');
    assert.equal(result.text, '42');
    assert.deepEqual(result.result, { 'text/plain': '42' });
    assert.equal(typeof result.executionCount, 'number');
  });

  it('keeps stdout and stderr apart and combines them in order', async () => {
    const result = await client.execute(
      'import sys\nprint("one", flush=True)\nprint("two", file=sys.stderr, flush=True)\nprint("three", flush=True)\n"value"',
    );
    assert.equal(result.stdout, 'one\nthree\n');
    assert.equal(result.stderr, 'two\n');
    assert.equal(result.text, "one\ntwo\nthree\n'value'");
  });

  // One write per line: print() writes the text and its newline separately, and the
  // kernel's background flush may send them as two chunks.
  const THREE_LINES_THEN_99 =
    'import sys, time\nfor i in range(3):\n    sys.stdout.write(f"line {i}\\n"); sys.stdout.flush()\n    time.sleep(0.05)\n99';

  it('streams chunks in order as they arrive and ends with the result', async () => {
    const items: (ExecutionChunk | ExecutionResult)[] = [];
    for await (const item of client.stream(THREE_LINES_THEN_99)) {
      items.push(item);
    }
    assert.deepEqual(
      items.map((item) => (item.kind === 'stream' ? item.text : item.kind)),
      ['line 0\n', 'line 1\n', 'line 2\n', 'execute_result', 'result'],
    );
    const last = items.at(-1) as ExecutionResult;
    assert.equal(last.text, 'line 0\nline 1\nline 2\n99');
  });

  it('hands execute() chunks to onChunk in order, all before the result', async () => {
    const seen: string[] = [];
    const result = await client.execute(THREE_LINES_THEN_99, {
      onChunk: (chunk) => seen.push(chunk.kind === 'stream' ? chunk.text : chunk.kind),
    });
    assert.deepEqual(seen, ['line 0\n', 'line 1\n', 'line 2\n', 'execute_result']);
    assert.equal(result.text, 'line 0\nline 1\nline 2\n99');
  });

  it('returns matplotlib figures as PNG files without any setup', async () => {
    const result = await client.execute(
      'import matplotlib.pyplot as plt\nplt.plot([1, 2, 3], [3, 1, 2])\nplt.title("t")\nplt.show()',
    );
    assert.equal(result.images.length, 1);
    const [image] = result.images;
    assert.equal(image.mimeType, 'image/png');
    assert.ok(image.path.startsWith(join(dir, 'images')));
    assert.ok(image.path.endsWith('.png'));
    assert.deepEqual(readFileSync(image.path), image.data);
    assert.deepEqual(image.data.subarray(0, 4), PNG_MAGIC);
    assert.equal(result.text, '', 'the figure repr is not text output');
  });

  it('saves SVG and JPEG display data too', async () => {
    const jpegBase64 =
      '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=';
    const result = await client.execute(
      `from IPython.display import display, SVG, Image\nimport base64\ndisplay(SVG('<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4"/></svg>'))\ndisplay(Image(data=base64.b64decode("${jpegBase64}"), format="jpeg"))`,
    );
    assert.deepEqual(
      result.images.map((image) => image.mimeType),
      ['image/svg+xml', 'image/jpeg'],
    );
    assert.match(result.images[0].data.toString(), /^<svg/);
    assert.ok(result.images[0].path.endsWith('.svg') && existsSync(result.images[0].path));
    assert.deepEqual(result.images[1].data, Buffer.from(jpegBase64, 'base64'));
    assert.ok(result.images[1].path.endsWith('.jpg'));
  });

  it('raises kernel exceptions with name, value and a traceback without ANSI codes', async () => {
    const error = await client.execute('def f():\n    return 1 / 0\nprint("before")\nf()').then(
      () => assert.fail('expected an error'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof CodeExecutionError);
    assert.equal(error.ename, 'ZeroDivisionError');
    assert.equal(error.evalue, 'division by zero');
    assert.match(error.traceback, /return 1 \/ 0/);
    assert.doesNotMatch(error.traceback, /\x1b\[/);
    assert.match(error.message, /^ZeroDivisionError: division by zero\n/);
    assert.equal(error.output.stdout, 'before\n');
  });

  it('strips ANSI codes that the code itself puts into an exception', async () => {
    await assert.rejects(client.execute('raise ValueError("\\x1b[31mred\\x1b[0m")'), (error) => {
      assert.ok(error instanceof CodeExecutionError);
      assert.doesNotMatch(error.traceback, /\x1b/);
      assert.match(error.traceback, /ValueError: red/);
      return true;
    });
  });

  it('reports syntax errors and stays usable', async () => {
    await assert.rejects(client.execute('def broken(:\n  pass'), {
      name: 'CodeExecutionError',
      ename: 'SyntaxError',
    });
    assert.equal((await client.execute('1 + 1')).text, '2');
  });

  it('refuses calls that ipykernel would never answer', async () => {
    await assert.rejects(client.execute(undefined as unknown as string), {
      name: 'TypeError',
      message: 'code must be a string, got undefined',
    });
    await assert.rejects(client.execute('1', { timeout: -5 }), { name: 'RangeError' });
    await assert.rejects(client.stream(42 as unknown as string).next(), { name: 'TypeError' });
    assert.equal((await client.execute('"still fine"')).text, "'still fine'");
  });

  it('fails input() with a clear error instead of waiting for a reply', async () => {
    await assert.rejects(client.execute('input("name? ")'), (error) => {
      assert.ok(error instanceof CodeExecutionError);
      assert.equal(error.ename, 'StdinNotImplementedError');
      assert.match(error.message, /without interactive input/);
      return true;
    });
  });

  it('supports top-level await', async () => {
    const result = await client.execute(
      'import asyncio\nawait asyncio.sleep(0.01)\nawait asyncio.sleep(0, result="awaited")',
    );
    assert.equal(result.text, "'awaited'");
  });

  it('delivers 1 MB of output whole', async () => {
    const result = await client.execute('print("x" * 1_000_000)');
    assert.equal(result.stdout.length, 1_000_001);
    assert.equal(result.stdout, `${'x'.repeat(1_000_000)}\n`);
  });

  it('delivers 50,000 lines whole and in order', async () => {
    const result = await client.execute('for i in range(50_000):\n    print(i)');
    const lines = result.stdout.split('\n');
    assert.equal(lines.pop(), '');
    assert.equal(lines.length, 50_000);
    assert.ok(lines.every((line, i) => line === String(i)));
  });

  it('interrupts a cell at its timeout and keeps the kernel state', async () => {
    await client.execute('kept = "still here"');
    await assert.rejects(
      client.execute(
        'import time\nprint("started", flush=True)\nwhile True:\n    time.sleep(0.01)',
        { timeout: 300 },
      ),
      (error) => {
        assert.ok(error instanceof KernelError);
        assert.equal(error.code, 'EXECUTION_TIMEOUT');
        assert.match(error.message, /timeout of 0.3 s/);
        assert.match(error.message, /keeps its state/);
        assert.equal(error.output?.stdout, 'started\n');
        return true;
      },
    );
    assert.equal((await client.execute('kept')).text, "'still here'");
  });

  it('does not count paused time against a TimeoutBudget', async () => {
    const paused = new TimeoutBudget(200);
    paused.pause(); // paused before the cell starts: the clock never runs
    const result = await client.execute('import time\ntime.sleep(0.5)\n"done"', {
      timeout: paused,
    });
    assert.equal(result.text, "'done'");
    assert.equal(paused.remaining, 200);

    const resumed = new TimeoutBudget(200);
    resumed.pause();
    const running = client.execute('import time\ntime.sleep(30)', { timeout: resumed });
    setTimeout(() => resumed.resume(), 100);
    await assert.rejects(running, {
      code: 'EXECUTION_TIMEOUT',
      message: /timeout of 0.2 s \(paused time not counted\)/,
    });
  });

  it('interrupts a busy pure-Python loop on interrupt()', async () => {
    const running = client.execute('n = 0\nwhile True:\n    n += 1');
    const stream = client.stream('n > 0'); // queued behind the loop
    await new Promise((resolve) => setTimeout(resolve, 200));
    await client.interrupt();
    await assert.rejects(running, { name: 'CodeExecutionError', ename: 'KeyboardInterrupt' });
    const items = [];
    for await (const item of stream) items.push(item);
    assert.equal((items.at(-1) as ExecutionResult).text, 'True');
  });

  it('cancels through an AbortSignal and drops calls queued behind', async () => {
    const abort = new AbortController();
    const running = client.execute('import time\ntime.sleep(30)', { signal: abort.signal });
    const queued = client.execute('"queued"', { signal: abort.signal });
    setTimeout(() => abort.abort(), 100);
    await assert.rejects(running, { code: 'EXECUTION_CANCELLED' });
    await assert.rejects(queued, { code: 'EXECUTION_CANCELLED' });
    assert.equal((await client.execute('"after"')).text, "'after'");
  });

  it('cancelRunning() interrupts the running cell and runs the ones queued behind it', async () => {
    const running = client.execute('import time\ntime.sleep(30)');
    const queued = client.execute('"queued"');
    setTimeout(() => client.cancelRunning(), 100);
    await assert.rejects(running, { code: 'EXECUTION_CANCELLED' });
    assert.equal((await queued).text, "'queued'");
  });

  it("runs inTurn() work and each cell's onTurn() in turn with the cells", async () => {
    const events: string[] = [];
    const first = client.execute('import time\ntime.sleep(0.2)').then(() => events.push('first'));
    const work = client.inTurn(async () => {
      events.push('work');
      return 'done';
    });
    const second = client.execute('"second"', {
      onTurn: () => {
        events.push('second turn');
        return () => events.push('second ended');
      },
    });
    assert.equal(await work, 'done');
    assert.equal((await second).text, "'second'");
    await first;
    assert.deepEqual(events, ['first', 'work', 'second turn', 'second ended']);
  });

  it('cancels the cell when a stream consumer stops early', async () => {
    await client.execute('progress = 0');
    for await (const item of client.stream(
      'import time\nfor progress in range(1, 1000):\n    print(progress, flush=True)\n    time.sleep(0.02)',
    )) {
      assert.equal(item.kind, 'stream');
      break;
    }
    const progress = Number((await client.execute('progress')).text);
    assert.ok(progress < 999, `the loop stopped early (at ${progress})`);
  });

  it('runs calls in submission order', async () => {
    await client.execute('order = []');
    const calls = Array.from({ length: 20 }, (_, i) =>
      client.execute(`order.append(${i})\nlen(order)`),
    );
    const results = await Promise.all(calls);
    assert.deepEqual(
      results.map((result) => result.text),
      Array.from({ length: 20 }, (_, i) => String(i + 1)),
    );
    assert.equal((await client.execute('order == list(range(20))')).text, 'True');
  });

  it('lets user code import the modules kept out of kernel start-up', async () => {
    const result = await client.execute(
      'import jedi, debugpy\nprint(jedi.__name__, debugpy.__name__)',
    );
    assert.equal(result.stdout, 'jedi debugpy\n');
  });

  it('gives the kernel only PATH, the inline matplotlib backend and its own variables', async () => {
    const result = await client.execute(
      'import os\nsorted(k for k in os.environ if k not in ("IPYTHONDIR", "JPY_PARENT_PID", "PYDEVD_DISABLE_FILE_VALIDATION"))',
    );
    const names = JSON.parse(result.text.replaceAll("'", '"'));
    assert.ok(!names.includes('HOME'), 'nothing of the parent environment except PATH');
    for (const name of ['PATH', 'MPLBACKEND']) assert.ok(names.includes(name), name);
  });
});
