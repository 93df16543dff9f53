/**
 * The management REST API of a real `mcp-proxy` process over HTTP: list_changed reaching every
 * MCP session after a REST load, the 400/401/404 rules, command extensions, health readiness,
 * the tool-call log, and a second proxy on the same port being refused.
 */

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { runProxyCli, startProxy, waitFor } from '@mcpbox/test-utils';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { testdir, versionPlugin, writeFile } from '../proxy/__fixtures__/testdir.ts';

const plugins = {
  'plugins/counter.ts': versionPlugin(
    'v1',
    "server.proxy?.registerCommand('explode', () => { throw new Error('boom'); });",
  ),
  'plugins/clash.ts': `export function register(s) { s.registerTool('echo', {}, () => 'x'); }`,
};

async function rest(
  port: number,
  method: string,
  path: string,
  options: { token?: string; body?: string; type?: string } = {},
) {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = options.type ?? 'application/json';
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers,
    body: options.body,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function connect(url: string, t: { after(fn: () => unknown): void }) {
  const client = new Client({ name: 'api-test', version: '1.0.0' });
  let changes = 0;
  let notify: () => void = () => {};
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    changes += 1;
    notify();
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  t.after(() => client.close());
  return {
    client,
    /** Resolves once at least `count` list_changed notifications have arrived. */
    changed: (count: number) =>
      new Promise<void>((resolve) => {
        notify = () => changes >= count && resolve();
        notify();
      }),
  };
}

test('REST operations reach every MCP session; errors are 400/401/404 JSON', async (t) => {
  const dir = testdir(plugins, t);
  const token = 's3cret-token';
  const proxy = await startProxy(
    [
      '--http',
      '0',
      '--mgmt-port',
      '0',
      '--mgmt-token',
      token,
      '-d',
      join(dir, 'plugins'),
      '-a',
      'echo',
    ],
    { env: { HOME: dir } },
  );
  t.after(() => proxy.stop());
  const port = proxy.mgmtPort;

  const one = await connect(proxy.mcpUrl!, t);
  const two = await connect(proxy.mcpUrl!, t);
  const load = await rest(port, 'POST', '/proxy/load', { token, body: '{"plugin":"counter"}' });
  assert.equal(load.status, 200);
  assert.deepEqual(load.body, {
    ok: true,
    plugin: 'counter',
    tools: ['version'],
    resources: [],
    prompts: [],
  });
  await Promise.all([one.changed(1), two.changed(1)]);
  for (const { client } of [one, two]) {
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    assert.ok(names.includes('version'));
  }

  // Authentication: missing or wrong token → 401, the secret never echoed.
  for (const header of [undefined, 'wrong', `${token}x`]) {
    const denied = await rest(port, 'GET', '/proxy/status', { token: header });
    assert.equal(denied.status, 401);
    assert.deepEqual(denied.body, { ok: false, error: 'unauthorized' });
  }

  const status = await rest(port, 'GET', '/proxy/status', { token });
  assert.equal(status.status, 200);
  assert.equal(status.body.total_plugins, 3);
  assert.deepEqual((status.body.plugins as Record<string, { tools: string[] }>).counter.tools, [
    'version',
  ]);

  const bad: Array<[string, string, { body?: string; type?: string }, number, RegExp]> = [
    ['POST', '/proxy/load', { body: '{"plugin":' }, 400, /^malformed JSON body/],
    ['POST', '/proxy/load', { body: '[1]' }, 400, /expected a JSON object body/],
    ['POST', '/proxy/load', { body: '{"name":"echo"}' }, 400, /missing "plugin"/],
    ['POST', '/proxy/load', {}, 400, /expected a JSON object body/],
    [
      'POST',
      '/proxy/load',
      { body: 'plugin=echo', type: 'application/x-www-form-urlencoded' },
      400,
      /expected a JSON body/,
    ],
    ['POST', '/proxy/load', { body: '{"plugin":"nosuch"}' }, 400, /^Plugin 'nosuch' not found/],
    ['POST', '/proxy/load', { body: '{"plugin":"echo"}' }, 400, /^Plugin 'echo' already loaded$/],
    [
      'POST',
      '/proxy/load',
      { body: '{"plugin":"clash"}' },
      400,
      /^Tool collision loading 'clash': 'echo' \(in 'echo'\)$/,
    ],
    ['POST', '/proxy/unload', { body: '{"plugin":"clash"}' }, 400, /^Plugin 'clash' not loaded$/],
    ['POST', '/proxy/command/nope', {}, 404, /^Unknown command: nope/],
    ['POST', '/proxy/command/explode', {}, 400, /^Command 'explode' failed: boom$/],
    ['GET', '/proxy/nothing', {}, 404, /no such endpoint/],
  ];
  for (const [method, path, options, code, message] of bad) {
    const answer = await rest(port, method, path, { token, ...options });
    assert.equal(answer.status, code, `${method} ${path} ${options.body}`);
    assert.equal(answer.body.ok, false);
    assert.match(String(answer.body.error), message);
  }

  assert.deepEqual((await rest(port, 'GET', '/proxy/commands', { token })).body, {
    commands: [
      { name: 'counter_ping', plugin: 'counter' },
      { name: 'explode', plugin: 'counter' },
    ],
  });
  assert.deepEqual(
    (await rest(port, 'POST', '/proxy/command/counter_ping', { token, body: '{"n":1}' })).body,
    {
      ok: true,
      command: 'counter_ping',
      result: { pong: true, args: { n: 1 } },
    },
  );

  // Reload through REST picks up the new code; unload tells both sessions again.
  writeFile(dir, 'plugins/counter.ts', versionPlugin('v2'));
  assert.equal(
    (await rest(port, 'POST', '/proxy/reload', { token, body: '{"plugin":"counter"}' })).status,
    200,
  );
  const call = await one.client.callTool({ name: 'version', arguments: {} });
  assert.deepEqual(call.content, [{ type: 'text', text: 'v2' }]);
  const unload = await rest(port, 'POST', '/proxy/unload', { token, body: '{"plugin":"counter"}' });
  assert.deepEqual(unload.body.removed, ['version']);

  // The proxy kept serving through all of it.
  const echo = await two.client.callTool({ name: 'echo', arguments: { message: 'alive' } });
  assert.deepEqual(echo.content, [{ type: 'text', text: 'alive' }]);

  // Management tools are plugin tools too: they go through the same interceptors.
  await two.client.callTool({ name: 'proxy__status', arguments: {} });

  // Every call went to the JSONL tool-call log under $HOME/.mcp_proxy/logs.
  const logFile = join(dir, '.mcp_proxy', 'logs', 'tool_calls.jsonl');
  await waitFor(
    () => existsSync(logFile) && readFileSync(logFile, 'utf8').includes('proxy__status'),
    'proxy__status in the tool-call log',
    10_000,
  );
  const entries = readFileSync(logFile, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  assert.deepEqual(
    entries.map((e) => [e.tool, e.ok]),
    [
      ['version', true],
      ['echo', true],
      ['proxy__status', true],
    ],
  );
});

test('/health/ready fails while an autoloaded plugin is missing; /health/plugins; config token beats env', async (t) => {
  // Token precedence rides along: the config file's management_token (from a placeholder) beats
  // the MCP_MGMT_TOKEN environment variable.
  const dir = testdir({ 'proxy.yaml': `management_token: $${'{'}FILE_TOKEN}\n` }, t);
  const proxy = await startProxy(
    [
      '--http',
      '0',
      '--mgmt-port',
      '0',
      '-c',
      join(dir, 'proxy.yaml'),
      '-d',
      dir,
      '-a',
      'echo',
      'late',
    ],
    { env: { HOME: dir, FILE_TOKEN: 'from-file', MCP_MGMT_TOKEN: 'from-env' } },
  );
  t.after(() => proxy.stop());
  const ready = await fetch(`${proxy.healthUrl}/health/ready`);
  assert.equal(ready.status, 503);
  assert.deepEqual(await ready.json(), {
    ready: false,
    error: 'autoloaded plugins not loaded: late',
  });
  const inventory = (await (await fetch(`${proxy.healthUrl}/health/plugins`)).json()) as {
    plugins: Record<string, { tools: string[] }>;
  };
  assert.deepEqual(inventory.plugins.echo.tools, ['echo', 'echo_upper']);

  writeFile(dir, 'late.ts', versionPlugin('late'));
  const load = (token: string) =>
    rest(proxy.mgmtPort, 'POST', '/proxy/load', { token, body: '{"plugin":"late"}' });
  assert.equal((await load('from-env')).status, 401);
  assert.equal((await load('from-file')).status, 200);
  const after = await fetch(`${proxy.healthUrl}/health/ready`);
  assert.equal(after.status, 200);
  assert.deepEqual(await after.json(), { ready: true });
});

test('a second proxy on the same management port refuses to start, also when a token is set', async (t) => {
  const dir = testdir({}, t);
  const first = await startProxy(
    ['--http', '0', '--mgmt-port', '0', '--mgmt-token', 'tok', '-a', 'echo'],
    {
      env: { HOME: dir },
    },
  );
  t.after(() => first.stop());
  const second = await runProxyCli(
    ['--http', '0', '--mgmt-port', String(first.mgmtPort), '-a', 'echo'],
    {
      env: { HOME: dir },
    },
  );
  assert.equal(second.code, 1);
  assert.match(second.stderr, new RegExp(`already running on management port ${first.mgmtPort}`));

  // Something that holds the port without answering HTTP: the bind fails with a clear message.
  const sockets = new Set<Socket>();
  const squatter = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    for (const socket of sockets) socket.destroy();
    squatter.close();
  });
  const port = (squatter.address() as { port: number }).port;
  const third = await runProxyCli(['--http', '0', '--mgmt-port', String(port), '-a', 'echo'], {
    env: { HOME: dir },
  });
  assert.equal(third.code, 1);
  assert.match(third.stderr, new RegExp(`management port ${port} is already in use`));
});
