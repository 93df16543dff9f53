/**
 * The plugin manager through the MCP management tools, in process: real server, registry,
 * catalog and plugin files in a temp directory; an SDK client over an in-memory transport.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { dynamicDispatchProxy, inProcessProxy, REPO_PLUGINS } from '../__fixtures__/inProcess.ts';
import { testdir, versionPlugin, writeFile } from './__fixtures__/testdir.ts';

/** A `${NAME}` placeholder as written in YAML. */
const ph = (name: string) => `$${'{'}${name}}`;

test('prefixes: auto_prefix, per-plugin string and false, never twice, explicit names too', async (t) => {
  const dir = testdir(
    {
      'pre.ts': `export function register(s) {
        s.registerTool('pre_ready', {}, () => 'a');
        s.registerTool('plain', {}, () => 'b');
        s.registerPrompt('ask', { description: 'p' }, () => 'hello');
      }`,
      'counter.ts': versionPlugin('v1'),
      'other.ts': versionPlugin('other'),
    },
    t,
  );
  const proxy = await inProcessProxy({
    plugin_dirs: [dir, REPO_PLUGINS],
    auto_prefix: true,
    plugins: { echo: { prefix: false }, counter: { prefix: 'zz' } },
    autoload: ['echo', 'greet', 'pre', 'counter', 'other'],
  });
  t.after(() => proxy.close());
  const tools = (await proxy.client.listTools()).tools.map((tool) => tool.name).sort();
  for (const name of [
    'echo',
    'echo_upper',
    'greet_greet',
    'pre_ready',
    'pre_plain',
    'zz_version',
    'other_version',
  ]) {
    assert.ok(tools.includes(name), `${name} in ${tools.join(', ')}`);
  }
  assert.ok(!tools.includes('pre_pre_ready'));
  const prompts = (await proxy.client.listPrompts()).prompts.map((p) => p.name);
  assert.deepEqual(prompts, ['pre_ask']);
  assert.deepEqual(await proxy.call('zz_version'), { text: 'v1', isError: false });
  // The management tools are never prefixed.
  assert.ok(tools.includes('proxy__status'));
});

test('reload picks up code changes and is transactional: a broken version leaves the old one serving', async (t) => {
  const dir = testdir(
    {
      'counter.ts': versionPlugin('v1'),
      'clash.ts': `export function register(s) { s.registerTool('echo', {}, () => 'x'); }`,
    },
    t,
  );
  const proxy = await inProcessProxy({
    plugin_dirs: [dir, REPO_PLUGINS],
    autoload: ['echo', 'counter'],
  });
  t.after(() => proxy.close());
  assert.equal((await proxy.call('version')).text, 'v1');

  writeFile(dir, 'counter.ts', versionPlugin('v2'));
  assert.deepEqual(await proxy.call('proxy__reload', { plugin: 'counter' }), {
    text: "Reloaded 'counter': version",
    isError: false,
  });
  assert.equal((await proxy.call('version')).text, 'v2');

  const broken = [
    [
      'a syntax error',
      'export function register(s) { s.registerTool("version", {}, () => "v3" ;; }',
      /failed to import/,
    ],
    [
      'register() throwing',
      versionPlugin('v3', 'throw new Error("database unreachable");'),
      /register\(\) failed: database unreachable/,
    ],
    [
      'a collision with another plugin',
      versionPlugin('v3', "server.registerTool('echo', {}, () => 'mine');"),
      /Tool collision loading 'counter': 'echo' \(in 'echo'\)/,
    ],
  ] as const;
  for (const [what, code, message] of broken) {
    writeFile(dir, 'counter.ts', code);
    const reload = await proxy.call('proxy__reload', { plugin: 'counter' });
    assert.equal(reload.isError, true, what);
    assert.match(reload.text, /^Error: /, what);
    assert.match(reload.text, message, what);
    assert.match(reload.text, /the previous version is still loaded/, what);
    assert.equal((await proxy.call('version')).text, 'v2', `v2 still serves after ${what}`);
    assert.equal((await proxy.call('echo', { message: 'hi' })).text, 'hi');
    // The old version's command survived too.
    assert.deepEqual(await proxy.manager.commands.run('counter_ping'), {
      ok: true,
      command: 'counter_ping',
      result: { pong: true, args: {} },
    });
  }
  // A plugin that is not loaded cannot be reloaded; the answer names the tool that loads it.
  assert.equal(
    (await proxy.call('proxy__reload', { plugin: 'clash' })).text,
    "Error: Plugin 'clash' not loaded — load it with proxy__load(plugin='clash')",
  );
});

test('reload re-reads files a plugin folder imports', async (t) => {
  const dir = testdir(
    {
      'folder/index.ts': `import { answer } from './answer.ts';
        export function register(s) { s.registerTool('answer', {}, () => answer()); }`,
      'folder/answer.ts': `export const answer = () => 'one';`,
    },
    t,
  );
  const proxy = await inProcessProxy({ plugin_dirs: [dir], autoload: ['folder'] });
  t.after(() => proxy.close());
  assert.equal((await proxy.call('answer')).text, 'one');
  writeFile(dir, 'folder/answer.ts', `export const answer = () => 'two';`);
  assert.equal((await proxy.call('proxy__reload', { plugin: 'folder' })).isError, false);
  assert.equal((await proxy.call('answer')).text, 'two');
});

test('per-plugin config files override the plugins: entry, with placeholders expanded', async (t) => {
  const plugin = `export function register(s, config) {
    s.registerTool('settings', {}, () => JSON.stringify(config));
  }`;
  const dir = testdir(
    {
      'plugins/conf/index.ts': plugin,
      'plugins/conf/config.yaml': `greeting: ${ph('GREETING')}\nshipped: from-folder\nlevel: folder\n`,
      'home/conf/config.yaml': `level: user\nsecret: ${ph('SECRET:-none')}\n`,
      'plugins/bad/index.ts': plugin,
      'plugins/bad/config.yaml': `token: ${ph('UNSET_TOKEN')}\n`,
    },
    t,
  );
  const proxy = await inProcessProxy(
    {
      plugin_dirs: [join(dir, 'plugins')],
      plugin_config_dir: join(dir, 'home'),
      plugins: { conf: { level: 'entry', entry_only: 1 } },
      autoload: ['conf'],
    },
    { GREETING: 'Moin' },
  );
  t.after(() => proxy.close());
  assert.deepEqual(JSON.parse((await proxy.call('settings')).text), {
    level: 'user',
    entry_only: 1,
    greeting: 'Moin',
    shipped: 'from-folder',
    secret: 'none',
  });
  const bad = await proxy.call('proxy__load', { plugin: 'bad' });
  assert.equal(bad.isError, true);
  assert.match(bad.text, /bad\/config\.yaml: token: environment variable UNSET_TOKEN is not set/);
});

test('dynamic dispatch: proxy__run calls only tools loaded after start-up', async (t) => {
  const proxy = await dynamicDispatchProxy(t, ['echo']);

  const none = await proxy.call('proxy__run', { tool: 'version' });
  assert.deepEqual(none, {
    text: "Error: 'version' not found. Available dynamic tools: (none)",
    isError: true,
  });

  const load = await proxy.call('proxy__load', { plugin: 'counter' });
  assert.equal(
    load.text,
    "Loaded 'counter': version\n\nThese tools are dynamically loaded. Call them via " +
      "proxy__run(tool='<name>', arguments={...}). Example: proxy__run(tool='version')",
  );
  assert.deepEqual(await proxy.call('proxy__run', { tool: 'version' }), {
    text: 'v1',
    isError: false,
  });
  assert.deepEqual(await proxy.call('proxy__run', { tool: 'echo', arguments: { message: 'x' } }), {
    text: "Error: 'echo' is a static tool — call it directly, not via proxy__run.",
    isError: true,
  });
  assert.deepEqual(await proxy.call('proxy__run', { tool: 'nope' }), {
    text: "Error: 'nope' not found. Available dynamic tools: version",
    isError: true,
  });
  // A start-up plugin stays static after a reload.
  assert.equal((await proxy.call('proxy__reload', { plugin: 'echo' })).isError, false);
  assert.match((await proxy.call('proxy__run', { tool: 'echo_upper' })).text, /static tool/);
  assert.equal((await proxy.call('proxy__tools', { dynamic_only: true })).text, 'version');
  // Arguments are validated on the way, as for a direct call.
  await proxy.call('proxy__unload', { plugin: 'echo' });
  await proxy.call('proxy__load', { plugin: 'echo' });
  const invalid = await proxy.call('proxy__run', { tool: 'echo', arguments: { message: 5 } });
  assert.equal(invalid.isError, true);
  assert.match(invalid.text, /Input validation error/);
});

test('management tools: status, list, tools, command, and bad input with clear errors', async (t) => {
  const dir = testdir(
    {
      'counter.ts': versionPlugin('v1'),
      'thrower.ts': `export function register() { throw new Error('no config'); }`,
      'clash.ts': `export function register(s) { s.registerTool('echo', {}, () => 'x'); }`,
    },
    t,
  );
  const proxy = await inProcessProxy({
    plugin_dirs: [dir, REPO_PLUGINS],
    autoload: ['echo', 'counter'],
  });
  t.after(() => proxy.close());

  const status = (await proxy.call('proxy__status')).text;
  assert.match(status, /Plugins: {3}3 loaded/);
  assert.match(status, /Tools: {5}20 registered/);
  const list = (await proxy.call('proxy__list')).text;
  assert.match(list, /^ {2}clash/m);
  assert.match(list, /greet — Greets someone by name\./);
  assert.doesNotMatch(list, /^ {2}echo/m);
  assert.match((await proxy.call('proxy__tools')).text, /^echo\necho_upper\nproxy__approvals\n/);
  assert.equal(
    (await proxy.call('proxy__tools', { dynamic_only: true })).text,
    '(no dynamic tools loaded)',
  );

  assert.equal((await proxy.call('proxy__command')).text, '  counter_ping (counter)');
  assert.equal(
    (await proxy.call('proxy__command', { command: 'counter_ping', args: { a: 1 } })).text,
    '{\n  "pong": true,\n  "args": {\n    "a": 1\n  }\n}',
  );
  assert.deepEqual(await proxy.call('proxy__command', { command: 'nope' }), {
    text: 'Error: Unknown command: nope (available: counter_ping)',
    isError: true,
  });

  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['proxy__load', { plugin: 'nosuch' }, /^Error: Plugin 'nosuch' not found \(looked in: /],
    ['proxy__load', { plugin: 'echo' }, /^Error: Plugin 'echo' already loaded$/],
    [
      'proxy__load',
      { plugin: 'thrower' },
      /^Error: Plugin 'thrower' register\(\) failed: no config$/,
    ],
    [
      'proxy__load',
      { plugin: 'clash' },
      /^Error: Tool collision loading 'clash': 'echo' \(in 'echo'\)$/,
    ],
    ['proxy__unload', { plugin: 'nosuch' }, /^Error: Plugin 'nosuch' not loaded$/],
    ['proxy__unload', { plugin: 'proxy' }, /built in and cannot be unloaded/],
  ];
  for (const [tool, args, message] of cases) {
    const result = await proxy.call(tool, args);
    assert.equal(result.isError, true, `${tool} ${JSON.stringify(args)}`);
    assert.match(result.text, message);
  }
  // Everything else keeps serving.
  assert.equal((await proxy.call('echo', { message: 'still here' })).text, 'still here');

  // Unloading takes the plugin's commands along.
  assert.equal(
    (await proxy.call('proxy__unload', { plugin: 'counter' })).text,
    "Unloaded 'counter': removed version",
  );
  assert.equal((await proxy.call('proxy__command')).text, '(no commands registered)');
});

test("a plugin's exported close() runs when its version leaves: on reload and on unload", async (t) => {
  const source = (version: string) => `
    export function register(s) { s.registerTool('closer_version', {}, () => '${version}'); }
    export function close() { (globalThis.closedVersions ??= []).push('${version}'); }`;
  const dir = testdir({ 'closer.ts': source('one') }, t);
  const closed = () => (globalThis as { closedVersions?: string[] }).closedVersions ?? [];
  const proxy = await inProcessProxy({ plugin_dirs: [dir], autoload: ['closer'] });
  t.after(() => proxy.close());
  writeFile(dir, 'closer.ts', source('two'));
  assert.equal((await proxy.call('proxy__reload', { plugin: 'closer' })).isError, false);
  assert.deepEqual(closed(), ['one']);
  // A failed reload closes nothing: the old version keeps serving.
  writeFile(dir, 'closer.ts', 'export const register = 1;');
  assert.equal((await proxy.call('proxy__reload', { plugin: 'closer' })).isError, true);
  assert.deepEqual(closed(), ['one']);
  await proxy.call('proxy__unload', { plugin: 'closer' });
  assert.deepEqual(closed(), ['one', 'two']);
});
