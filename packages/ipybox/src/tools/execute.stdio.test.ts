/**
 * `execute_ipython_cell` end to end: the real `ipybox` bin, the real SDK client over stdio, a
 * real IPython kernel. One server for the file (kernels are slow to start on this machine).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/server';
import {
  alive,
  runCell,
  runCellCancelledAtOutput,
  type StdioIpybox,
  startStdioIpybox,
  tempWorkspace,
  textOf,
  waitForExit,
} from '../server/testing.ts';

describe('ipybox over stdio: execute_ipython_cell', () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  let box: StdioIpybox;
  let kernelPid: number;

  before(async () => {
    ws = await tempWorkspace();
    await writeFile(
      join(ws.dir, '.env'),
      'KERNEL_ENV_FROM_DOTENV=dotenv-value\nKERNEL_ENV_OVERRIDDEN=from-dotenv\nPLAIN_DOTENV_SECRET=s3cret\n',
    );
    box = await startStdioIpybox(ws.dir, {
      env: {
        KERNEL_ENV_GREETING: 'hello kernel',
        KERNEL_ENV_OVERRIDDEN: 'from-real-env',
        IPYBOX_TEST_SECRET: 'do-not-leak',
      },
    });
  });
  after(async () => {
    await box?.close();
    if (kernelPid) assert.ok(await waitForExit(kernelPid), 'the kernel exits with the server');
    await ws?.remove();
  });

  test('lists the six tools with the documented parameters', async () => {
    const { tools } = await box.client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [
      'execute_ipython_cell',
      'install_package',
      'new_kernel',
      'register_mcp_server',
      'reset',
      'save_skill',
    ]);
    const execute = tools.find((t) => t.name === 'execute_ipython_cell');
    const props = execute?.inputSchema.properties as Record<string, { default?: unknown }>;
    assert.equal(props.timeout?.default, 120);
    assert.equal(props.max_output_chars?.default, 5000);
  });

  test('state persists across calls; the cwd is the workspace', async () => {
    const first = await runCell(box.client, 'import os\nx = 41\nprint(os.getcwd())\nos.getpid()');
    assert.equal(first.isError, undefined);
    const [cwd, pid] = textOf(first).split('\n');
    assert.equal(cwd, ws.dir);
    kernelPid = Number(pid);
    assert.ok(alive(kernelPid));
    const second = await runCell(box.client, 'x + 1');
    assert.equal(textOf(second), '42');
  });

  test('KERNEL_ENV_* reach the kernel without prefix (real env over .env); nothing else does', async () => {
    const result = await runCell(
      box.client,
      "import os, json\nprint(json.dumps({k: os.environ.get(k) for k in ['GREETING', 'FROM_DOTENV', 'OVERRIDDEN', 'IPYBOX_TEST_SECRET', 'PLAIN_DOTENV_SECRET', 'KERNEL_ENV_GREETING', 'HOME']}))",
    );
    assert.deepEqual(JSON.parse(textOf(result)), {
      GREETING: 'hello kernel',
      FROM_DOTENV: 'dotenv-value',
      OVERRIDDEN: 'from-real-env',
      IPYBOX_TEST_SECRET: null,
      PLAIN_DOTENV_SECRET: null,
      KERNEL_ENV_GREETING: null,
      HOME: null,
    });
  });

  test('a matplotlib figure comes back as image content and as a file under images/', async () => {
    const result = await runCell(
      box.client,
      'import matplotlib.pyplot as plt\nplt.plot([1, 2, 3], [1, 4, 9])\nplt.show()',
    );
    assert.equal(result.isError, undefined);
    const images = result.content.filter((c) => c.type === 'image');
    assert.equal(images.length, 1);
    const image = images[0] as { data: string; mimeType: string };
    assert.equal(image.mimeType, 'image/png');
    const bytes = Buffer.from(image.data, 'base64');
    assert.equal(bytes.subarray(1, 4).toString('latin1'), 'PNG');
    const path = /\]\((\/[^)]+\.png)\)/.exec(textOf(result))?.[1];
    assert.ok(path, `image path listed in: ${textOf(result)}`);
    assert.ok(path.startsWith(join(ws.dir, 'images')), path);
    assert.ok(existsSync(path));
    assert.deepEqual(readFileSync(path), bytes);
  });

  test('long output keeps its head and tail around a marker that says what was cut', async () => {
    const result = await runCell(box.client, "print('a' * 95 + 'z' * 5)", { max_output_chars: 10 });
    assert.match(
      textOf(result),
      /^a{4}\n\[Output truncated: 90 characters \(1 line\) cut from the middle to fit max_output_chars=10; for more, read the resource ipybox:\/\/outputs\/\S+ \(all of it\), or run it with a larger max_output_chars \(at most 200,000\)\]\na{1}z{5}$/,
    );
    const huge = await runCell(box.client, "print('b' * 5_000_000)");
    const text = textOf(huge);
    assert.ok(text.length > 5000 && text.length < 5300, `${text.length} characters`);
    assert.match(text, /\[Output truncated: 4,995,000 characters \(1 line\) cut/);
  });

  test('an exception is an isError result with the traceback and the output before it', async () => {
    const result = await runCell(
      box.client,
      "print('before')\ndef f():\n    raise ValueError('bad value')\nf()",
    );
    assert.equal(result.isError, true);
    const text = textOf(result);
    assert.match(text, /^before\n/);
    assert.match(text, /ValueError\s+Traceback/);
    assert.match(text, /----> 4 f\(\)/);
    assert.match(text, /ValueError: bad value/);
  });

  test('a syntax error is an isError result; the kernel keeps its state', async () => {
    const result = await runCell(box.client, 'def broken(:\n  pass');
    assert.equal(result.isError, true);
    assert.match(textOf(result), /SyntaxError/);
    assert.equal(textOf(await runCell(box.client, 'x')), '41');
  });

  test('output streams as progress notifications while the cell runs', async () => {
    const seen: { message?: string; at: number }[] = [];
    let finishedAt = 0;
    const result = (await box.client.callTool(
      {
        name: 'execute_ipython_cell',
        arguments: {
          code: "import time\nfor i in range(3):\n    print(f'step {i}', flush=True)\n    time.sleep(0.4)\n'done'",
        },
      },
      { onprogress: (p) => seen.push({ message: p.message, at: Date.now() }) },
    )) as CallToolResult;
    finishedAt = Date.now();
    // The steps are 0.4 s apart, so each arrives in a read of its own. The cell's value is sent
    // as progress right before the result; the bare SDK client dispatches notifications a
    // microtask after responses, so when both land in one read it drops that last one (our own
    // client routes progress synchronously, see client/requestControl.ts). Its text is in the
    // result either way.
    assert.deepEqual(
      seen.slice(0, 3).map((s) => s.message),
      ['step 0\n', 'step 1\n', 'step 2\n'],
    );
    assert.ok(seen.slice(3).every((s) => s.message === "'done'\n"));
    // The first step arrived before the result: it was streamed, not sent afterwards.
    assert.ok(seen[0] && seen[0].at < finishedAt);
    assert.equal(textOf(result), "step 0\nstep 1\nstep 2\n'done'");
  });

  test('an endless loop times out with a clear error; the kernel stays usable', async () => {
    const result = await runCell(box.client, 'y = 7\nwhile True:\n    pass', { timeout: 1 });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /timeout of 1 s/);
    assert.equal(textOf(await runCell(box.client, 'y * 6')), '42');
  });

  test('a client cancelling the call interrupts the cell; the kernel keeps its state', async () => {
    const running = runCellCancelledAtOutput(
      box.client,
      "z = 5\nprint('started', flush=True)\nimport time\ntime.sleep(60)",
    );
    await assert.rejects(running, /abort/i);
    // The interrupted cell ran `z = 5` before sleeping; the next call is not stuck behind it.
    assert.equal(textOf(await runCell(box.client, 'z * 2')), '10');
  });

  test('a cell that kills its kernel gets a clear error; the next call gets a fresh kernel', async () => {
    const result = await runCell(
      box.client,
      'import os, signal\nos.kill(os.getpid(), signal.SIGKILL)',
    );
    assert.equal(result.isError, true);
    // Said once, with the signal: not the same sentence twice.
    assert.match(
      textOf(result),
      /^The kernel died \(killed by SIGKILL\); its state is lost\. The next call starts a new kernel\. Workspace files, packages and mcptools\/ are kept\.$/m,
    );
    assert.equal(textOf(result).match(/state is lost/g)?.length, 1, textOf(result));
    assert.ok(await waitForExit(kernelPid));
    const next = await runCell(box.client, "import os\nprint('x' in globals(), os.getpid())");
    assert.equal(next.isError, undefined);
    const [defined, pid] = textOf(next).split(' ');
    assert.equal(defined, 'False');
    kernelPid = Number(pid);
  });

  test('bad arguments are a clear error and the server keeps serving', async () => {
    const result = (await box.client.callTool({
      name: 'execute_ipython_cell',
      arguments: { code: 42 },
    })) as CallToolResult;
    assert.equal(result.isError, true);
    assert.match(textOf(result), /code/);
    assert.equal(textOf(await runCell(box.client, '6 * 7')), '42');
  });

  test('no internal error was reported on stderr along the way', () => {
    assert.doesNotMatch(box.stderr(), /Internal error|Unhandled/);
  });
});
