import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { firstText } from '@mcpbox/test-utils';
import { z } from 'zod';
import { FIXTURE_PLUGINS, inMemoryClient } from '../__fixtures__/testServer.ts';
import { loadConfig } from '../config/index.ts';
import type { PluginServer } from '../contract/plugin.ts';
import { createServer, type ServerOptions, serverOptionsFromConfig } from '../server.ts';
import { deferLoadingMatcher } from './toolListing.ts';

type After = { after: (fn: () => unknown) => void };

/** Stands in for code mode's plugin: one tool, registered under the plugin name `code_mode`. */
const fakeCodeMode = {
  register(server: PluginServer) {
    server.registerTool(
      'search_tools',
      { description: 'search', inputSchema: { query: z.string() } },
      ({ query }) => `searched ${query}`,
    );
  },
};

/** A plugin whose tool carries `_meta` of its own, as a mirrored upstream tool may. */
const withMeta = {
  register(server: PluginServer) {
    server.registerTool(
      'meta_tool',
      { description: 'has _meta', _meta: { 'example.com/owner': 'upstream', ui: { x: 1 } } },
      () => 'ok',
    );
  },
};

async function serverWith(t: After, options: ServerOptions) {
  const server = createServer({ name: 'listing', pluginDirs: [FIXTURE_PLUGINS], ...options });
  t.after(() => server.close());
  for (const [name, module] of [
    ['code_mode', fakeCodeMode],
    ['mirror', withMeta],
  ] as const) {
    const loaded = await server.registry.loadPlugin(name, { module });
    assert.equal(loaded.error, undefined);
  }
  assert.equal((await server.registry.loadPlugin('kitchen')).error, undefined);
  const client = await inMemoryClient(server);
  t.after(() => client.close());
  return { server, client };
}

const names = (tools: { name: string }[]) => tools.map((tool) => tool.name);

describe('tools/list with code mode', () => {
  test('on: only code mode tools are listed, every tool stays callable by name', async (t) => {
    const { client, server } = await serverWith(t, { codeMode: 'on' });
    assert.deepEqual(names((await client.listTools()).tools), ['search_tools']);
    assert.equal(
      firstText(await client.callTool({ name: 'echo', arguments: { message: 'hidden' } })),
      'hidden',
    );
    assert.ok(server.catalogView.tools().length > 5, 'the view still sees every tool');
    assert.ok(server.catalogView.search('echo message').some((hit) => hit.tool.name === 'echo'));
  });

  test('on, with plugins named to stay listed (the proxy management tools)', async (t) => {
    const { client } = await serverWith(t, { codeMode: 'on', listedInCodeMode: ['mirror'] });
    assert.deepEqual(names((await client.listTools()).tools), ['meta_tool', 'search_tools']);
  });

  test('both and off list everything, the same way', async (t) => {
    const both = await serverWith(t, { codeMode: 'both' });
    const off = await serverWith(t, {});
    const listed = names((await both.client.listTools()).tools);
    assert.ok(listed.includes('search_tools') && listed.includes('echo'));
    assert.deepEqual(names((await off.client.listTools()).tools), listed);
  });

  test('a plugin loaded later under code mode on is not listed, and its load is announced', async (t) => {
    const { client, server } = await serverWith(t, { codeMode: 'on' });
    await server.registry.loadPlugin('alpha');
    assert.deepEqual(names((await client.listTools()).tools), ['search_tools']);
    assert.equal(
      firstText(await client.callTool({ name: 'alpha_echo', arguments: { message: 'x' } })),
      'alpha: x',
    );
  });
});

describe('deferred-loading hints', () => {
  test('tools named by plugin, tool name or glob carry _meta.defer_loading; other _meta is kept', async (t) => {
    const { client } = await serverWith(t, { deferLoading: ['mirror', 'ech?', 'kitchen.add'] });
    const tools = (await client.listTools()).tools;
    const meta = (name: string) => tools.find((tool) => tool.name === name)?._meta;
    assert.deepEqual(meta('meta_tool'), {
      'example.com/owner': 'upstream',
      ui: { x: 1 },
      defer_loading: true,
    });
    assert.deepEqual(meta('echo'), { defer_loading: true });
    assert.deepEqual(meta('add'), { defer_loading: true });
    assert.equal(meta('search_tools'), undefined);
    assert.equal(meta('fail'), undefined);
  });

  test('the config: defer_loading at the top and per plugin, code_mode with MCP_CODE_MODE', () => {
    const config = loadConfig({
      env: { MCP_CODE_MODE: 'both' },
      overrides: {
        defer_loading: ['everything.*'],
        plugins: { memory: { defer_loading: true }, echo: {} },
      },
    });
    assert.equal(config.code_mode, 'both');
    const options = serverOptionsFromConfig(config);
    assert.equal(options.codeMode, 'both');
    assert.deepEqual(options.deferLoading, ['everything.*', 'memory']);
    assert.equal(loadConfig({ overrides: {} }).code_mode, 'off');
    assert.equal(loadConfig({ env: { MCP_CODE_MODE: 'true' } }).code_mode, 'on');
    assert.throws(
      () => loadConfig({ env: { MCP_CODE_MODE: 'sometimes' } }),
      (error: Error) =>
        error.message.includes(
          'environment variable MCP_CODE_MODE: code_mode: expected one of off, on, both, got "sometimes"',
        ),
    );
  });

  test('patterns: plugin, exact name, * and ? globs over tool and plugin.tool', () => {
    const match = deferLoadingMatcher(['memory', 'read_*', 'everything.get?', 'a.b'])!;
    assert.equal(match('memory', 'create_entities'), true);
    assert.equal(match('fs', 'read_file'), true);
    assert.equal(match('everything', 'getx'), true);
    assert.equal(match('everything', 'get_all'), false);
    assert.equal(match('fs', 'write_file'), false);
    assert.equal(match('a', 'b'), true, 'a literal dot is no wildcard');
    assert.equal(match('aXb', 'c'), false);
    assert.equal(deferLoadingMatcher([]), undefined);
  });
});

test('the listing runs once per catalog change, not per tools/list', async (t) => {
  const server = createServer({ name: 'listing-cost', pluginDirs: [FIXTURE_PLUGINS] });
  t.after(() => server.close());
  await server.registry.loadPlugin('kitchen');
  let runs = 0;
  server.catalog.setToolListing((entry) => {
    runs++;
    return entry.definition;
  });
  const client = await inMemoryClient(server);
  t.after(() => client.close());
  const count = server.catalog.size.tools;
  await client.listTools();
  await client.listTools();
  assert.equal(runs, count, 'one pass for two listings');
  await server.registry.loadPlugin('alpha');
  await client.listTools();
  await client.listTools();
  assert.equal(runs, count + count + 1, 'one more pass after the change');
});
