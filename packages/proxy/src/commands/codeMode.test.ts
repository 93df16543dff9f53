/**
 * `--code-mode`, `code_mode:` / `MCP_CODE_MODE` and `defer_loading:` end to end: the real
 * mcp-factory and mcp-proxy bins, SDK clients of both eras over stdio and HTTP. A stand-in
 * `code_mode` plugin in a test plugin folder (searched before the shipped one) offers
 * `search_tools` over `server.catalog`, so the listing filter is tested apart from ipybox.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { ERAS, type Era, versionOfEra } from '@mcpbox/framework';
import {
  connectHttp,
  connectStdio,
  FACTORY_BIN,
  runProxyCli,
  startHttpProxy,
} from '@mcpbox/test-utils';
import { Client, SSEClientTransport } from '@modelcontextprotocol/client';
import { testdir } from '../proxy/__fixtures__/testdir.ts';

const CODE_MODE_STANDIN = `
export function register(server) {
  server.registerTool(
    'search_tools',
    {
      description: 'Names of the catalog tools that match a query',
      inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
    },
    ({ query }) => server.catalog.search(query, { limit: 3 }).map((hit) => hit.tool.name).join(','),
  );
}
`;

/**
 * A test tree with the stand-in plugin. Removed after everything else the test started has
 * stopped (hooks run in the order they are added, so call this after starting the server).
 */
function fixture(t: TestContext, files: Record<string, string> = {}) {
  const dir = testdir({
    'plugins/package.json': '{ "type": "module" }',
    'plugins/code_mode.js': CODE_MODE_STANDIN,
    ...files,
  });
  return {
    dir,
    removeLater: () =>
      t.after(() => rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 })),
  };
}

function newClient(era: Era): Client {
  return new Client(
    { name: `code-mode-${era}`, version: '1.0.0' },
    { versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: versionOfEra(era) } } },
  );
}

const httpClient = (t: TestContext, url: string, era: Era) =>
  connectHttp(t, url, {
    name: `code-mode-${era}`,
    options: {
      versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: versionOfEra(era) } },
    },
  });

const names = async (client: Client) =>
  (await client.listTools()).tools.map((tool) => tool.name).sort();

const text = (result: unknown) =>
  (result as { content: Array<{ text?: string }> }).content.map((c) => c.text ?? '').join('');

for (const era of ERAS) {
  test(`mcp-factory --code-mode over stdio (${era}): only code mode is listed, the rest is callable`, async (t) => {
    const { dir, removeLater } = fixture(t);
    const { client } = await connectStdio(t, {
      bin: FACTORY_BIN,
      args: [
        '-d',
        join(dir, 'plugins'),
        '-p',
        'echo',
        'greet',
        '--code-mode',
        '--log-level',
        'warning',
      ],
      home: dir,
      client: newClient(era),
    });
    removeLater();
    assert.deepEqual(await names(client), ['search_tools']);
    assert.equal(text(await client.callTool({ name: 'echo', arguments: { message: 'hi' } })), 'hi');
    const found = await client.callTool({
      name: 'search_tools',
      arguments: { query: 'say hello to someone by name' },
    });
    assert.ok(text(found).split(',').includes('greet'), text(found));
  });

  test(`mcp-proxy --code-mode over HTTP (${era}): code mode and proxy__* listed, later loads too stay unlisted`, async (t) => {
    const { dir, removeLater } = fixture(t);
    const proxy = await startHttpProxy(
      t,
      ['-d', join(dir, 'plugins'), '-a', 'echo', '--code-mode'],
      { env: { HOME: dir } },
    );
    removeLater();
    const client = await httpClient(t, proxy.mcpUrl, era);
    const listed = await names(client);
    assert.ok(listed.includes('search_tools'), listed.join(', '));
    assert.ok(listed.includes('proxy__load'), listed.join(', '));
    assert.ok(
      listed.every((name) => name === 'search_tools' || name.startsWith('proxy__')),
      listed.join(', '),
    );

    const loaded = await client.callTool({ name: 'proxy__load', arguments: { plugin: 'greet' } });
    assert.equal(loaded.isError, undefined, text(loaded));
    assert.deepEqual(await names(client), listed, 'greet loaded, not listed');
    assert.equal(
      text(await client.callTool({ name: 'greet', arguments: { name: 'Ada' } })),
      'Hello, Ada!',
    );
    assert.equal(text(await client.callTool({ name: 'echo', arguments: { message: 'x' } })), 'x');

    if (era === 'legacy') {
      // The legacy SSE transport reads the same listing.
      const sse = newClient(era);
      await sse.connect(new SSEClientTransport(new URL(proxy.mcpUrl.replace(/\/mcp$/, '/sse'))));
      try {
        assert.deepEqual(await names(sse), listed);
        assert.equal(text(await sse.callTool({ name: 'echo', arguments: { message: 'y' } })), 'y');
      } finally {
        await sse.close();
      }
    }
  });
}

test('code_mode: both from MCP_CODE_MODE lists everything; defer_loading marks tools in _meta (mcp-proxy over HTTP)', async (t) => {
  const { dir, removeLater } = fixture(t, {
    'factory.yaml': 'defer_loading: [echo_upper]\nplugins:\n  greet:\n    defer_loading: true\n',
  });
  const proxy = await startHttpProxy(
    t,
    ['-c', join(dir, 'factory.yaml'), '-d', join(dir, 'plugins'), '-a', 'echo', 'greet'],
    { env: { HOME: dir, MCP_CODE_MODE: 'both' } },
  );
  removeLater();
  for (const era of ERAS) {
    const client = await httpClient(t, proxy.mcpUrl, era);
    const tools = (await client.listTools()).tools;
    const listed = tools.map((tool) => tool.name);
    for (const name of ['search_tools', 'echo', 'echo_upper', 'greet', 'proxy__load']) {
      assert.ok(listed.includes(name), `${era}: ${name} in ${listed.join(', ')}`);
    }
    const meta = (name: string) => tools.find((tool) => tool.name === name)?._meta;
    assert.deepEqual(meta('echo_upper'), { defer_loading: true }, era);
    assert.deepEqual(meta('greet'), { defer_loading: true }, era);
    assert.equal(meta('echo'), undefined, era);
  }
});

test('a wrong --code-mode value is refused with what to write', async () => {
  const result = await runProxyCli(['--code-mode', 'sometimes']);
  assert.notEqual(result.code, 0);
  assert.match(result.stderr, /--code-mode.*expected on, both or off/);
});
