/**
 * Long cells as tasks (the `io.modelcontextprotocol/tasks` extension) against the real
 * `ipybox --http` and `mcp-proxy -a ipybox`: a 2026 client that declares the extension gets a task
 * for each cell, sees the output so far on `tasks/get`, and gets the cell's result when it ends;
 * `tasks/cancel` interrupts the kernel and keeps its variables. A 2025 client gets a task only for
 * a request that carries the extension in its `_meta` (SEP-2663: "regardless of prior
 * declarations"); declared at initialize only, it gets the cell's output. Clients without it keep
 * the plain result.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, type TestContext, test } from 'node:test';
import {
  pollTask,
  rawModern,
  runServerBin,
  startProxy,
  TASKS_CAPABILITIES,
  textOf,
} from '@mcpbox/test-utils';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { KERNEL_META_KEY } from '../tools/kernelTools.ts';
import { IPYBOX_BIN, tempWorkspace } from './testing.ts';

type Start = (t: TestContext, workspace: string) => Promise<URL>;

const startIpybox: Start = async (t, ws) => {
  const run = await runServerBin(
    t,
    IPYBOX_BIN,
    ['--workspace', ws, '--http', '0'],
    /ipybox MCP endpoint: (\S+)/,
  );
  assert.ok(run.match, run.stderr());
  return new URL(run.match[1] as string);
};

const startProxyWithIpybox: Start = async (t, ws) => {
  const config = join(ws, 'proxy.yaml'); // removed with the workspace
  await writeFile(config, `plugins:\n  ipybox:\n    workspace: ${JSON.stringify(ws)}\n`);
  const proxy = await startProxy(
    ['--http', '0', '--mgmt-port', '0', '--health-port', '0', '-c', config, '-a', 'ipybox'],
    { env: { HOME: ws }, timeoutMs: 120_000 },
  );
  t.after(() => proxy.stop());
  return new URL(proxy.mcpUrl as string);
};

async function workspace(t: TestContext): Promise<string> {
  const ws = await tempWorkspace();
  t.after(() => ws.remove());
  return ws.dir;
}

/** A plain (no-task) 2026 cell; returns its result. */
async function plainCell(url: URL, code: string, kernel?: string) {
  const got = await rawModern(url, 'tools/call', {
    name: 'execute_ipython_cell',
    arguments: { code, ...(kernel && { kernel }) },
  });
  assert.ok(got.result, JSON.stringify(got));
  return got.result;
}

/** Starts a cell as a task (2026); returns its task id. */
async function taskCell(url: URL, code: string, kernel: string): Promise<string> {
  const created = await rawModern(
    url,
    'tools/call',
    { name: 'execute_ipython_cell', arguments: { code, kernel } },
    { capabilities: TASKS_CAPABILITIES },
  );
  assert.equal(created.result?.resultType, 'task', JSON.stringify(created));
  return created.result?.taskId as string;
}

const POLL = { timeoutMs: 240_000 };

for (const [name, start] of [
  ['ipybox --http', startIpybox],
  ['mcp-proxy -a ipybox', startProxyWithIpybox],
] as const) {
  describe(`cells as tasks: ${name}`, () => {
    test('2026: a long cell is polled to completion with its output so far; another is cancelled mid-run, its kernel keeps its variables', async (t) => {
      const url = await start(t, await workspace(t));
      // A kernel of our own (its handle), so later cells find its state.
      const first = await plainCell(url, 'x = 41');
      const kernel = (first._meta as Record<string, unknown>)[KERNEL_META_KEY] as string;
      assert.equal(typeof kernel, 'string', JSON.stringify(first));

      // The cell goes on until the test lets it finish (a file appears): no guessing at times.
      const long = await taskCell(
        url,
        "import os, time\nprint('step 1', flush=True)\nwhile not os.path.exists('go'): time.sleep(0.05)\nx += 1\nprint('step 2', x)",
        kernel,
      );
      const working = await pollTask(
        url,
        long,
        (v) => String(v.statusMessage ?? '').includes('step 1'),
        POLL,
      );
      assert.equal(working.status, 'working');
      await plainCell(url, "open('go', 'w').close()", undefined);
      const done = await pollTask(url, long, (v) => v.status !== 'working', POLL);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.match(textOf(done.result), /step 1\nstep 2 42/);

      const doomed = await taskCell(
        url,
        "import time\nprint('begin', flush=True)\ntime.sleep(600)\nx = 0",
        kernel,
      );
      await pollTask(url, doomed, (v) => String(v.statusMessage ?? '').includes('begin'), POLL);
      const cancel = await rawModern(
        url,
        'tasks/cancel',
        { taskId: doomed },
        { capabilities: TASKS_CAPABILITIES },
      );
      assert.equal(cancel.result?.resultType, 'complete', JSON.stringify(cancel));
      assert.equal((await pollTask(url, doomed, () => true)).status, 'cancelled');
      // Interrupted, not restarted: the next cell runs now and sees x.
      assert.match(textOf(await plainCell(url, 'print(x)', kernel)), /^42/);

      // Someone else's task id (or a made-up one) is unknown.
      const unknown = await rawModern(
        url,
        'tasks/get',
        { taskId: `${doomed}x` },
        { capabilities: TASKS_CAPABILITIES },
      );
      assert.equal(unknown.error?.code, -32602);
    });

    test("2025: declared at initialize only (the MCP Inspector CLI's way), the cell's output; declared on the request, a task", async (t) => {
      const url = await start(t, await workspace(t));
      const client = new Client(
        { name: 'tasks-2025', version: '1.0.0' },
        { capabilities: TASKS_CAPABILITIES, versionNegotiation: { mode: 'legacy' } },
      );
      await client.connect(new StreamableHTTPClientTransport(url));
      t.after(() => client.close());
      const plain = await client.callTool(
        { name: 'execute_ipython_cell', arguments: { code: "print('hello plain')" } },
        { timeout: 300_000 },
      );
      assert.equal(textOf(plain), 'hello plain', JSON.stringify(plain));
      assert.ok(!('taskId' in plain), JSON.stringify(plain));

      const loose = z.looseObject({});
      const created = (await client.request(
        {
          method: 'tools/call',
          params: {
            name: 'execute_ipython_cell',
            arguments: { code: "print('hello task')" },
            _meta: { 'io.modelcontextprotocol/clientCapabilities': TASKS_CAPABILITIES },
          },
        },
        loose,
        { timeout: 300_000 },
      )) as Record<string, unknown>;
      const taskId = created.taskId as string;
      assert.equal(typeof taskId, 'string', JSON.stringify(created));
      const deadline = Date.now() + POLL.timeoutMs;
      let view: Record<string, unknown> = {};
      while (view.status !== 'completed' && Date.now() < deadline) {
        view = (await client.request({ method: 'tasks/get', params: { taskId } }, loose)) as Record<
          string,
          unknown
        >;
        if (view.status !== 'completed') await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(view.status, 'completed', JSON.stringify(view));
      assert.equal(textOf(view.result), 'hello task');
    });
  });
}
