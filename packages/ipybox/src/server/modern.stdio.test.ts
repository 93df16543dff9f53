/**
 * ipybox for a 2026-07-28 client: the real SDK v2 `Client` pinned to the modern era
 * (`server/discover`, the per-request `_meta` envelope, no session, `input_required` instead of
 * server→client requests) over stdio, against the real `ipybox` bin and `mcp-factory -p ipybox`.
 *
 * A 2026 request has no session id; over stdio one connection is one process, so one kernel,
 * and state persists across calls as it does for a 2025 session.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client, type ClientOptions } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { ElicitRequest } from '@modelcontextprotocol/server';
import {
  callEcho,
  FACTORY_BIN,
  registerEverything,
  runCell,
  runCellCancelledAtOutput,
  type StdioIpybox,
  startStdioIpybox,
  tempWorkspace,
  textOf,
} from './testing.ts';

const MODERN = '2026-07-28';
const modern = (options: ClientOptions = {}): ClientOptions => ({
  ...options,
  versionNegotiation: { mode: { pin: MODERN } },
});

describe(`ipybox over stdio for a ${MODERN} client`, () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  let box: StdioIpybox;

  before(async () => {
    ws = await tempWorkspace();
    box = await startStdioIpybox(ws.dir, {
      args: ['--approval', 'elicit'],
      clientOptions: modern({ capabilities: { elicitation: {} } }),
    });
  });
  after(async () => {
    await box?.close();
    await ws?.remove();
  });

  test('negotiates the modern era and lists the six tools', async () => {
    assert.equal(box.client.getNegotiatedProtocolVersion(), MODERN);
    const { tools } = await box.client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [
      'execute_ipython_cell',
      'install_package',
      'new_kernel',
      'register_mcp_server',
      'reset',
      'save_skill',
    ]);
  });

  test('state persists across two calls, in the same kernel', async () => {
    const first = await runCell(box.client, 'x = 41\nimport os\nos.getpid()');
    assert.equal(first.isError, undefined, textOf(first));
    const second = await runCell(box.client, 'print(x + 1)\nos.getpid()');
    assert.equal(second.isError, undefined, textOf(second));
    const [answer, pid] = textOf(second).split('\n');
    assert.equal(answer, '42');
    assert.equal(pid, textOf(first));
  });

  test('output streams as progress; cancelling interrupts the cell and keeps earlier state', async () => {
    const seen: string[] = [];
    const streamed = await box.client.callTool(
      {
        name: 'execute_ipython_cell',
        // Pauses between prints: the SDK client drops progress it reads together with the result.
        arguments: {
          code: "import time\nfor i in range(3):\n    print(f'step {i}', flush=True)\n    time.sleep(0.3)\n'done'",
        },
      },
      { onprogress: (p) => seen.push(String(p.message)), timeout: 300_000 },
    );
    assert.equal(textOf(streamed), "step 0\nstep 1\nstep 2\n'done'");
    // The value's chunk may come in one read with the result, and then is dropped with it.
    assert.deepEqual(seen.slice(0, 3), ['step 0\n', 'step 1\n', 'step 2\n']);

    const cancelled = runCellCancelledAtOutput(
      box.client,
      "z = 5\nprint('started', flush=True)\nimport time\ntime.sleep(60)",
    );
    await assert.rejects(cancelled, /abort/i);
    const started = Date.now();
    assert.equal(textOf(await runCell(box.client, 'z')), '5');
    assert.ok(Date.now() - started < 30_000, 'the next cell did not wait for the sleep');
  });

  test('--approval elicit with a client that cannot elicit: a refusal that says why', async (t) => {
    const plain = await startStdioIpybox(ws.dir, {
      args: ['--approval', 'elicit'],
      clientOptions: modern(),
    });
    t.after(() => plain.close());
    await registerEverything(plain.client);
    const result = await runCell(plain.client, callEcho('anyone?'));
    assert.match(
      textOf(result),
      /^ApprovalUnavailable \| .*(does not support elicitation|2025-11-25 session).*--approval auto/,
    );
  });

  // A 2026 request is asked mid-cell through input_required; the retry brings the decision to
  // the cell still waiting in the kernel, so the cell runs once (approval.eras.test.ts has more).
  test('--approval elicit: a 2026 request is asked mid-cell; the cell runs once', async () => {
    const asked: ElicitRequest['params'][] = [];
    box.client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params);
      return { action: 'accept', content: { approve: true } };
    });
    await registerEverything(box.client);
    const result = await runCell(
      box.client,
      "runs = globals().get('runs', 0) + 1\n" +
        'from mcptools.everything import echo\n' +
        "print(echo.run({'message': f'run {runs}'}))",
    );
    assert.equal(asked.length, 1, 'one question reached the client');
    assert.equal(textOf(result), 'Echo: run 1');
    assert.equal(textOf(await runCell(box.client, 'runs')), '1');
  });
});

test(`mcp-factory -p ipybox serves a ${MODERN} client`, async (t) => {
  const ws = await tempWorkspace();
  const config = join(ws.dir, 'factory.yaml');
  await writeFile(config, `plugins:\n  ipybox:\n    workspace: ${ws.dir}\n`);
  const client = new Client({ name: 'ipybox-modern-test', version: '1.0.0' }, modern());
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [FACTORY_BIN, '-c', config, '-p', 'ipybox', '--log-level', 'warning'],
      cwd: ws.dir,
      env: process.env as Record<string, string>,
      stderr: 'ignore',
    }),
  );
  t.after(async () => {
    await client.close();
    await ws.remove();
  });
  assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
  assert.equal(textOf(await runCell(client, 'y = 6 * 7')), '');
  assert.equal(textOf(await runCell(client, 'import os\nprint(y, os.getcwd())')), `42 ${ws.dir}`);
});
