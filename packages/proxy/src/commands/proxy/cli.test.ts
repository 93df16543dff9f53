/**
 * `mcp-proxy status|list|tools|load|unload|reload|command` against a real proxy process, run as
 * the real bin: readable output, `--json`, the token from `--mgmt-token` or MCP_MGMT_TOKEN, and
 * the two connection errors; an unknown command named as one.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { runProxyCli, startProxy } from '@mcpbox/test-utils';
import { testdir, versionPlugin, writeFile } from '../../proxy/__fixtures__/testdir.ts';

test('client commands manage a running proxy', async (t) => {
  const dir = testdir({ 'plugins/counter.ts': versionPlugin('v1') }, t);
  const token = 'cli-token';
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
  const port = String(proxy.mgmtPort);
  const cli = (...args: string[]) =>
    runProxyCli([...args, '--mgmt-port', port, '--mgmt-token', token]);

  const load = await cli('load', 'counter');
  assert.equal(load.code, 0, load.stderr);
  assert.equal(load.stdout, "Loaded 'counter': version\n");

  const status = await cli('status');
  assert.equal(status.code, 0, status.stderr);
  assert.equal(
    status.stdout,
    [
      'Plugins: 3, Tools: 20',
      '  proxy (internal): proxy__load, proxy__unload, proxy__reload, proxy__status, proxy__list (+12 more)',
      '  echo: echo, echo_upper',
      '  counter: version',
      '',
    ].join('\n'),
  );

  // The token may come from the environment instead.
  const tools = await runProxyCli(['tools', '--mgmt-port', port], {
    env: { MCP_MGMT_TOKEN: token },
  });
  assert.equal(tools.code, 0, tools.stderr);
  assert.match(tools.stdout, /^echo +echo$/m);
  assert.match(tools.stdout, /^version +counter \(dynamic\)$/m);

  const list = await cli('list', '--json');
  assert.equal(list.code, 0, list.stderr);
  const listed = JSON.parse(list.stdout) as {
    plugins: string[];
    available: Array<{ name: string; loaded: boolean }>;
  };
  assert.deepEqual(listed.plugins, ['proxy', 'echo', 'counter']);
  assert.deepEqual(
    listed.available
      .filter((p) => ['counter', 'greet'].includes(p.name))
      .map((p) => [p.name, p.loaded]),
    [
      ['counter', true],
      ['greet', false],
    ],
  );

  writeFile(
    dir,
    'plugins/counter.ts',
    versionPlugin('v2', "server.registerTool('extra', {}, () => 'e');"),
  );
  const reload = await cli('reload', 'counter');
  assert.equal(reload.stdout, "Reloaded 'counter': version, extra\n");

  const commands = await cli('command');
  assert.equal(commands.stdout, '  counter_ping (counter)\n');
  const ping = await cli('command', 'counter_ping', '{"x": 1}');
  assert.equal(ping.code, 0, ping.stderr);
  assert.deepEqual(JSON.parse(ping.stdout), { pong: true, args: { x: 1 } });

  const unload = await cli('unload', 'counter');
  assert.equal(unload.stdout, "Unloaded 'counter': removed version, extra\n");

  // Failures: one line on stderr, exit 1.
  const again = await cli('unload', 'counter');
  assert.deepEqual([again.code, again.stderr], [1, "Error: Plugin 'counter' not loaded\n"]);
  // Reloading what is not loaded names the command that loads it (not the API's "load()").
  const reloadUnloaded = await cli('reload', 'counter');
  assert.deepEqual(
    [reloadUnloaded.code, reloadUnloaded.stderr],
    [1, "Error: Plugin 'counter' not loaded — load it with mcp-proxy load counter\n"],
  );
  const unknown = await cli('command', 'nope');
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /^Error: Unknown command: nope/);
  const noToken = await runProxyCli(['status', '--mgmt-port', port]);
  assert.deepEqual(
    [noToken.code, noToken.stderr],
    [
      1,
      'Error: unauthorized — provide --mgmt-token (or --mgmt-token-file) or set MCP_MGMT_TOKEN\n',
    ],
  );
});

test('an unknown command is called one, not an argument of serve', async () => {
  const unknown = await runProxyCli(['frobnicate']);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /^error: unknown command 'frobnicate'\n/);
  assert.doesNotMatch(unknown.stderr, /too many arguments/);
  // The help that follows lists the commands there are.
  assert.match(unknown.stderr, /^ {2}status \[options\]/m);
  const afterOptions = await runProxyCli(['--http', '0', 'frobnicate']);
  assert.equal(afterOptions.code, 1);
  assert.match(afterOptions.stderr, /^error: unknown command 'frobnicate'\n/);
  const toServe = await runProxyCli(['serve', 'extra']);
  assert.equal(toServe.code, 1);
  assert.match(toServe.stderr, /^error: serve takes no arguments: 'extra'\n/);
});

test('a command whose arguments are not a JSON object fails before any request', async () => {
  // Port 1 is never an mcp-proxy here: the operand is refused before the API is tried.
  const notJson = await runProxyCli(['command', 'greet', 'not json', '--mgmt-port', '1']);
  assert.equal(notJson.code, 1);
  assert.match(notJson.stderr, /^Error: command arguments must be a JSON object: Unexpected/);
  const array = await runProxyCli(['command', 'greet', '[1]', '--mgmt-port', '1']);
  assert.equal(array.code, 1);
  assert.equal(
    array.stderr,
    'Error: command arguments must be a JSON object, e.g. \'{"key": "value"}\'\n',
  );
});

test('client commands say when no proxy is running', async () => {
  // Port 1 is privileged and never an mcp-proxy here.
  const result = await runProxyCli(['status', '--mgmt-port', '1']);
  assert.equal(result.code, 1);
  assert.equal(
    result.stderr,
    'Error: cannot connect to management API on port 1 — is the proxy running?\n',
  );
});

test('new-plugin writes a plugin skeleton and refuses to overwrite it', async (t) => {
  const dir = testdir({}, t);
  const first = await runProxyCli(['new-plugin', 'weather', join(dir, 'plugins')]);
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /^Created plugin "weather" in /);
  assert.match(first.stdout, /weather\/index\.ts/);
  const again = await runProxyCli(['new-plugin', 'weather', join(dir, 'plugins')]);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /^Error: .*already exists; not overwriting it/);
});
