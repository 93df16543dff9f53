/**
 * ipybox over Streamable HTTP: each MCP session its own kernel, the `max_kernels` limit, idle
 * kernels reaped. The real `ipybox --http 0` process and real SDK clients.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  type HttpIpybox,
  registerEverything,
  runCell,
  startHttpIpybox,
  tempWorkspace,
  textOf,
  waitForExit,
} from '../server/testing.ts';

describe('ipybox over HTTP: a kernel per session', () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  let box: HttpIpybox;

  before(async () => {
    ws = await tempWorkspace();
    box = await startHttpIpybox(ws.dir, {
      args: ['--max-kernels', '2', '--kernel-idle-timeout', '2'],
    });
  });
  after(async () => {
    await box?.close();
    await ws?.remove();
  });

  test('two sessions have separate kernel state and share the workspace; a third is refused', async () => {
    const a = await box.connect();
    const b = await box.connect();
    const setA = await runCell(a, "owner = 'a'\nopen('shared.txt', 'w').write('from a')");
    assert.equal(setA.isError, undefined, textOf(setA));
    const setB = await runCell(b, "owner = 'b'");
    assert.equal(setB.isError, undefined, textOf(setB));
    assert.equal(textOf(await runCell(a, 'owner')), "'a'");
    assert.equal(textOf(await runCell(b, "print(owner, open('shared.txt').read())")), 'b from a');
    const pidA = Number(textOf(await runCell(a, 'import os; os.getpid()')));
    const pidB = Number(textOf(await runCell(b, 'import os; os.getpid()')));
    assert.notEqual(pidA, pidB);

    const c = await box.connect();
    const refused = await runCell(c, '1 + 1');
    assert.equal(refused.isError, true);
    assert.match(textOf(refused), /all 2 kernels \(max_kernels\) are in use/);
    // The refused session is still served: other tools answer.
    const { tools } = await c.listTools();
    assert.ok(tools.some((tool) => tool.name === 'new_kernel'));

    // Idle for longer than kernel_idle_timeout (2 s): both kernels are closed…
    assert.ok(await waitForExit(pidA, 20_000), 'idle kernel of session a reaped');
    assert.ok(await waitForExit(pidB, 20_000), 'idle kernel of session b reaped');
    // …which frees room for the third session. a hears once that its state is gone (never a
    // NameError from a fresh kernel), then starts afresh.
    assert.equal(textOf(await runCell(c, '1 + 1')), '2');
    const told = await runCell(a, 'owner');
    assert.equal(told.isError, true);
    assert.match(textOf(told), /^ipybox: your kernel was closed after 2 s idle/);
    assert.equal(textOf(await runCell(a, "'owner' in globals()")), 'False');
  });

  test('the process ends its kernels when it stops', async () => {
    const d = await box.connect();
    const pid = Number(textOf(await runCell(d, 'import os; os.getpid()')));
    await box.close();
    assert.ok(await waitForExit(pid), 'kernel exited with the server');
  });
});

describe('ipybox over HTTP: approvals go to the session whose cell made the call', () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  let box: HttpIpybox;

  before(async () => {
    ws = await tempWorkspace();
    box = await startHttpIpybox(ws.dir, { args: ['--approval', 'elicit'] });
  });
  after(async () => {
    await box?.close();
    await ws?.remove();
  });

  test('each session is asked through its own client; a server registered in one serves all', async () => {
    const asked = { a: 0, b: 0 };
    const a = await box.connect({ capabilities: { elicitation: {} } });
    const b = await box.connect({ capabilities: { elicitation: {} } });
    a.setRequestHandler('elicitation/create', async () => {
      asked.a += 1;
      return { action: 'accept', content: { approve: true } };
    });
    b.setRequestHandler('elicitation/create', async () => {
      asked.b += 1;
      return { action: 'decline' };
    });
    await runCell(b, 'pass'); // b's kernel exists before the registration
    await registerEverything(a);

    const code = [
      'from mcptools._runtime import ToolRejected',
      'from mcptools.everything import echo',
      'try:',
      "    print(echo.run({'message': 'hi'}))",
      'except ToolRejected:',
      "    print('rejected')",
    ].join('\n');
    const [fromA, fromB] = await Promise.all([runCell(a, code), runCell(b, code)]);
    assert.equal(textOf(fromA), 'Echo: hi');
    assert.equal(textOf(fromB), 'rejected');
    assert.deepEqual(asked, { a: 1, b: 1 });
  });
});
