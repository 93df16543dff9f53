/**
 * Cluster mode with kernels on a Jupyter server: two real `ipybox --http` replicas share a real
 * Redis (MCP_REDIS_URL) and a real Jupyter server, and real SDK clients pinned to 2026-07-28 (no
 * session: what a load balancer spreads over replicas) reach one kernel through either replica.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type RedisServer, startRedisServer, TEST_CLUSTER_SECRET } from '@mcpbox/test-utils';
import type { Client } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { type JupyterServer, startJupyterServer } from '../__fixtures__/jupyterServer.ts';
import { type HttpIpybox, startHttpIpybox, tempWorkspace, textOf } from '../server/testing.ts';
import { KERNEL_META_KEY } from '../tools/kernelTools.ts';

const MODERN = { versionNegotiation: { mode: { pin: '2026-07-28' as const } } };

describe('ipybox replicas on one Redis and one Jupyter server', () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  let redis: RedisServer;
  let jupyter: JupyterServer;
  let a: HttpIpybox;
  let b: HttpIpybox;
  let clientA: Client;
  let clientB: Client;
  const cleanup: (() => Promise<unknown>)[] = [];

  const cell = async (client: Client, code: string, kernel?: string) =>
    (await client.callTool(
      { name: 'execute_ipython_cell', arguments: { code, ...(kernel && { kernel }) } },
      { timeout: 300_000 },
    )) as CallToolResult;

  before(async () => {
    ws = await tempWorkspace();
    redis = await startRedisServer({ after: (fn) => cleanup.push(async () => fn()) });
    jupyter = await startJupyterServer({ PATH: process.env.PATH ?? '/usr/bin:/bin' });
    const replica = () =>
      startHttpIpybox(ws.dir, {
        // Every test opens a kernel of its own (an unauthenticated 2026 caller has no default).
        args: ['--kernel-gateway', jupyter.url, '--max-kernels', '10'],
        env: {
          IPYBOX_KERNEL_GATEWAY_TOKEN: jupyter.token,
          MCP_REDIS_URL: redis.url,
          MCP_CLUSTER_SECRET: TEST_CLUSTER_SECRET,
        },
      });
    [a, b] = await Promise.all([replica(), replica()]);
    [clientA, clientB] = await Promise.all([a.connect(MODERN), b.connect(MODERN)]);
  });
  after(async () => {
    await Promise.allSettled([a?.close(), b?.close()]);
    await jupyter?.stop();
    for (const fn of cleanup.reverse()) await fn();
    await ws?.remove();
  });

  test('a cell through replica A, the next through replica B: the same kernel, 42', async () => {
    assert.equal(clientA.getProtocolEra(), 'modern');
    const first = await cell(clientA, 'x = 41');
    assert.equal(first.isError, undefined, textOf(first));
    const handle = first._meta?.[KERNEL_META_KEY] as string;
    assert.match(handle, /^ipk_/);
    const second = await cell(clientB, 'x + 1', handle);
    assert.equal(textOf(second), '42');
    assert.equal((second._meta as Record<string, unknown>)[KERNEL_META_KEY], handle);
    // And back: state B made is seen through A.
    await cell(clientB, 'y = x * 2', handle);
    assert.equal(textOf(await cell(clientA, 'y', handle)), '82');
  });

  test("each replica's cell calls tools through its own tool server (approvals stay with the cell's replica)", async () => {
    const handle = (await cell(clientA, 'pass'))._meta?.[KERNEL_META_KEY] as string;
    const where = 'import os\nos.environ["IPYBOX_TOOL_SERVER"]';
    const viaA = textOf(await cell(clientA, where, handle));
    const viaB = textOf(await cell(clientB, where, handle));
    assert.match(viaA, /^'http:\/\/127\.0\.0\.1:\d+'$/);
    assert.match(viaB, /^'http:\/\/127\.0\.0\.1:\d+'$/);
    assert.notEqual(viaA, viaB);
    assert.equal(textOf(await cell(clientA, where, handle)), viaA);
  });

  test('a handle with a wrong secret reaches nothing on the other replica', async () => {
    const handle = (await cell(clientA, 'z = 1'))._meta?.[KERNEL_META_KEY] as string;
    const forged =
      `${handle.slice(0, -4)}AAAA` === handle
        ? `${handle.slice(0, -4)}BBBB`
        : `${handle.slice(0, -4)}AAAA`;
    const refused = await cell(clientB, 'z', forged);
    assert.equal(refused.isError, true);
    assert.match(textOf(refused), /unknown kernel handle/);
  });

  test('a reset through B is seen through A: fresh state, the same handle', async () => {
    const handle = (await cell(clientA, 'w = 5'))._meta?.[KERNEL_META_KEY] as string;
    assert.equal(textOf(await cell(clientB, 'w', handle)), '5');
    const reset = (await clientB.callTool({
      name: 'reset',
      arguments: { kernel: handle },
    })) as CallToolResult;
    assert.equal(reset.isError, undefined, textOf(reset));
    assert.equal(textOf(await cell(clientA, '"w" in globals()', handle)), 'False');
  });

  test('the Jupyter server restarted: the replica that reaches the kernel first says it was lost; then a fresh one for both', async () => {
    const handle = (await cell(clientA, 'v = 7'))._meta?.[KERNEL_META_KEY] as string;
    assert.match(handle, /^ipk_/);
    const { port } = new URL(jupyter.url);
    await jupyter.stop();
    jupyter = await startJupyterServer(
      { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      { port: Number(port), token: jupyter.token },
    );
    const lost = await cell(clientB, 'v', handle);
    assert.equal(lost.isError, true);
    assert.match(
      textOf(lost),
      /The kernel was lost \(the Jupyter Server at http:\/\/127\.0\.0\.1:\d+ no longer has kernel [0-9a-f-]+: it was restarted, or the kernel was shut down there\): its variables and imports are gone\. Nothing ran\./,
    );
    assert.equal(textOf(await cell(clientB, 'v = 8\n"fresh"', handle)), "'fresh'");
    assert.equal(textOf(await cell(clientA, 'v', handle)), '8');
  });
});
