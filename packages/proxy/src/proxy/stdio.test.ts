/**
 * The proxy under stdio, launched by the SDK client as an MCP client would: the management API
 * runs beside it without a byte on stdout that is not protocol, REST operations reach the stdio
 * session, and `--watch` reloads a saved plugin.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectStdio, freePort } from '@mcpbox/test-utils';
import { Client } from '@modelcontextprotocol/client';
import { testdir, versionPlugin, writeFile } from './__fixtures__/testdir.ts';

test('stdio: management API beside the protocol, list_changed after REST, --watch', async (t) => {
  const dir = testdir(
    {
      'counter.ts': versionPlugin('v1'),
      'late.ts': `export function register(s) { s.registerTool('late_tool', {}, () => 'ok'); }`,
    },
    t,
  );
  const port = await freePort();
  const protocolErrors: Error[] = [];
  const client = new Client({ name: 'stdio-test', version: '1.0.0' });
  client.onerror = (error) => protocolErrors.push(error);
  let changes = 0;
  let onChange = () => {};
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    changes += 1;
    onChange();
  });
  const { stderr } = await connectStdio(t, {
    args: ['--mgmt-port', String(port), '-d', dir, '-a', 'counter', '--watch'],
    home: dir,
    client,
  });
  const waitChange = (count: number) =>
    new Promise<void>((resolve) => {
      onChange = () => changes >= count && resolve();
      onChange();
    });

  assert.deepEqual((await client.callTool({ name: 'version', arguments: {} })).content, [
    { type: 'text', text: 'v1' },
  ]);

  // The management API is up although the transport is stdio.
  let changed = waitChange(1);
  const load = await fetch(`http://127.0.0.1:${port}/proxy/load`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ plugin: 'late' }),
  });
  assert.equal(load.status, 200, stderr());
  await changed;
  const names = (await client.listTools()).tools.map((tool) => tool.name);
  assert.ok(names.includes('late_tool'));

  // --watch: saving the plugin file reloads it.
  changed = waitChange(changes + 1);
  writeFile(dir, 'counter.ts', versionPlugin('v2'));
  await changed;
  await waitForText(client, 'version', 'v2');

  assert.deepEqual(protocolErrors, [], 'stdout carried only protocol messages');
  assert.match(stderr(), /management API http:\/\/127\.0\.0\.1:\d+/);
  // Before the temp folder goes (t.after runs in order): the proxy writes its log into HOME.
  await client.close();
});

/** The watcher's unload and load are two changes; poll until the new code answers. */
async function waitForText(client: Client, tool: string, text: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const result = await client.callTool({ name: tool, arguments: {} });
    const content = result.content as Array<{ text?: string }>;
    if (content[0]?.text === text) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${tool} never answered ${text}`);
}
