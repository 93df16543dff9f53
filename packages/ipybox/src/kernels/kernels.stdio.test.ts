/**
 * Kernels under stdio, for a client of each era, through the real `ipybox` bin: the connection
 * keeps one kernel of its own (never reaped while connected), `new_kernel` opens independent
 * ones that idle reaping closes, and a handle from another ipybox process reaches nothing.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CallToolResult, ClientOptions } from '@modelcontextprotocol/client';
import {
  runCell,
  startStdioIpybox,
  tempWorkspace,
  textOf,
  waitForExit,
} from '../server/testing.ts';
import { KERNEL_META_KEY } from '../tools/kernelTools.ts';

const ERAS: [string, ClientOptions][] = [
  ['2025-11-25', { versionNegotiation: { mode: 'legacy' } }],
  ['2026-07-28', { versionNegotiation: { mode: { pin: '2026-07-28' } } }],
];

for (const [era, clientOptions] of ERAS) {
  describe(`kernels over stdio for a ${era} client`, () => {
    test("the connection's kernel outlives kernel_idle_timeout; new_kernel's does not", async (t) => {
      const ws = await tempWorkspace();
      t.after(() => ws.remove());
      const box = await startStdioIpybox(ws.dir, {
        args: ['--kernel-idle-timeout', '1'],
        clientOptions,
      });
      t.after(() => box.close());
      const client = box.client;

      const first = await runCell(client, 'a = 1\nimport os\nos.getpid()');
      assert.equal(first.isError, undefined, textOf(first));
      assert.match(String(first._meta?.[KERNEL_META_KEY]), /^ipk_/);
      assert.doesNotMatch(textOf(first), /new kernel/, 'the connection needs no handle');
      const pid = Number(textOf(first));

      const opened = (await client.callTool({
        name: 'new_kernel',
        arguments: {},
      })) as CallToolResult;
      const handle = textOf(opened);
      const inNew = (await client.callTool(
        {
          name: 'execute_ipython_cell',
          arguments: { code: "import os\n'a' in globals(), os.getpid()", kernel: handle },
        },
        { timeout: 300_000 },
      )) as CallToolResult;
      const [seen, newPid] = /\((\w+), (\d+)\)/.exec(textOf(inNew))?.slice(1) ?? [];
      assert.equal(seen, 'False', textOf(inNew));
      assert.notEqual(Number(newPid), pid);

      // Idle past 1 s: the kernel new_kernel opened is reaped, the connection's stays.
      assert.ok(await waitForExit(Number(newPid), 30_000), "new_kernel's kernel reaped");
      const again = await runCell(client, 'a, os.getpid()');
      assert.equal(textOf(again), `(1, ${pid})`);
      const gone = (await client.callTool({
        name: 'execute_ipython_cell',
        arguments: { code: 'a', kernel: handle },
      })) as CallToolResult;
      assert.equal(gone.isError, true);
      assert.match(textOf(gone), /is gone: it was closed after 1 s idle/);

      // A handle of another ipybox process is unknown here.
      const elsewhere = await startStdioIpybox(ws.dir, { clientOptions });
      t.after(() => elsewhere.close());
      const foreign = (await elsewhere.client.callTool({
        name: 'execute_ipython_cell',
        arguments: { code: '1', kernel: String(first._meta?.[KERNEL_META_KEY]) },
      })) as CallToolResult;
      assert.equal(foreign.isError, true);
      assert.match(textOf(foreign), /unknown kernel handle/);
    });
  });
}
