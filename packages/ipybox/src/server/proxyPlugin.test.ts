/**
 * ipybox as a plugin of the real `mcp-proxy`: a reload through the management API closes the
 * old registration's kernels (and only those: the new one serves at once), an unload closes the
 * rest, and the proxy goes on serving. Before, both left kernels running until the proxy exited.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startProxy } from '@mcpbox/test-utils';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { isGone, killGroup, waitUntilGone } from '../__fixtures__/processes.ts';
import { runCell, textOf } from './testing.ts';

const TOKEN = 'ipybox-proxy-test-token';

test('mcp-proxy: reload and unload of the ipybox plugin close its kernels', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'ipybox-proxy-'));
  const kernels: number[] = [];
  t.after(async () => {
    for (const pid of kernels) killGroup(pid);
    await rm(dir, { recursive: true, force: true });
  });
  await writeFile(
    join(dir, 'proxy.yaml'),
    `plugins:\n  ipybox:\n    workspace: ${JSON.stringify(join(dir, 'workspace'))}\n`,
  );
  const proxy = await startProxy(
    ['--http', '0', '--mgmt-port', '0', '--mgmt-token', TOKEN, '-c', join(dir, 'proxy.yaml')],
    { env: { HOME: dir, TMPDIR: dir } },
  );
  t.after(() => proxy.stop());
  const manage = async (action: 'load' | 'reload' | 'unload') => {
    const response = await fetch(`http://127.0.0.1:${proxy.mgmtPort}/proxy/${action}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ plugin: 'ipybox' }),
    });
    const body = (await response.json()) as { ok: boolean; error?: string };
    assert.equal(body.ok, true, `${action}: ${body.error}`);
  };
  const client = new Client({ name: 'ipybox-proxy-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(proxy.mcpUrl!)));
  t.after(() => client.close());
  const kernelPid = async () => {
    const result = await runCell(client, "import os\nstate = 'kept'\nos.getpid()");
    assert.notEqual(result.isError, true, textOf(result));
    const pid = Number(textOf(result).trim());
    kernels.push(pid);
    return pid;
  };

  await manage('load');
  const first = await kernelPid();
  assert.ok(!isGone(first));

  await manage('reload');
  assert.ok(await waitUntilGone(first, 300), 'the old kernel outlived the reload');
  const fresh = await runCell(client, "'state' in globals()");
  assert.equal(textOf(fresh), 'False', 'the reloaded plugin starts a new kernel');
  const second = await kernelPid();
  assert.notEqual(second, first);

  await manage('unload');
  assert.ok(await waitUntilGone(second, 300), 'the kernel outlived the unload');
  // The proxy still serves; the tools are gone with the plugin.
  const tools = (await client.listTools()).tools.map((tool) => tool.name);
  assert.ok(!tools.includes('execute_ipython_cell'), tools.join(', '));
});
