import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { codeAt, firstText, newSecret } from '@mcpbox/test-utils';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { inMemoryClient, kitchenServer } from '../__fixtures__/testServer.ts';
import type { CatalogView } from '../contract/catalogView.ts';
import type { PluginServer } from '../contract/plugin.ts';
import { createSecurity, type SecurityConfig } from '../security.ts';
import { JsonlToolLogger } from '../toollog/jsonl.ts';

type After = { after: (fn: () => unknown) => void };

/** Security over stdio without OAuth or metrics: the interceptors the view's calls pass. */
const NO_OAUTH: SecurityConfig = {
  transport: 'stdio',
  oauth_enabled: false,
  oauth_server_url: undefined,
  oauth_public_url: undefined,
  oauth_cache_ttl: 0,
  oauth_required_scopes: [],
  metrics: false,
};

/** A plugin whose `run_by_code` calls any catalog tool through `server.catalog`, as code mode does. */
function codeRunner(seen: { view?: CatalogView }) {
  return {
    register(server: PluginServer) {
      seen.view = server.catalog;
      server.registerTool(
        'run_by_code',
        {
          description: 'Calls a tool through the catalog view',
          inputSchema: { tool: z.string(), args: z.record(z.string(), z.unknown()).optional() },
        },
        async ({ tool, args }, ctx) => {
          try {
            return await server.catalog.callTool(tool, args, ctx, { via: 'code' });
          } catch (error) {
            const code = error instanceof ProtocolError ? error.code : 'none';
            return {
              content: [{ type: 'text', text: `thrown ${code}: ${(error as Error).message}` }],
              isError: true,
            };
          }
        },
      );
    },
  };
}

async function setup(t: After) {
  const dir = await mkdtemp(join(tmpdir(), 'catalog-view-'));
  const toolLogger = new JsonlToolLogger({ dir });
  const security = createSecurity(NO_OAUTH, { toolLogger });
  // close() flushes the log into the folder: removed first, the folder would be made again.
  t.after(async () => {
    await security.close();
    await rm(dir, { recursive: true, force: true });
  });
  const server = await kitchenServer();
  t.after(() => server.close());
  security.install(server);
  const seen: { view?: CatalogView } = {};
  const loaded = await server.registry.loadPlugin('runner', { module: codeRunner(seen) });
  assert.equal(loaded.error, undefined);
  const client = await inMemoryClient(server);
  t.after(() => client.close());
  const readLog = async () => {
    await toolLogger.flush();
    return (await readFile(toolLogger.path, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
  };
  return { server, security, client, view: seen.view!, readLog };
}

test('a plugin sees the whole catalog through server.catalog: every enabled tool with its owner', async (t) => {
  const { server, view } = await setup(t);
  assert.equal(view, server.catalogView, 'one view per server, the same for every plugin');
  const tools = view.tools();
  const echo = tools.find((info) => info.tool.name === 'echo');
  assert.equal(echo?.plugin, 'kitchen');
  assert.equal(echo?.tool.description, 'Echo a message');
  assert.equal(tools.find((info) => info.tool.name === 'run_by_code')?.plugin, 'runner');
  const names = tools.map((info) => info.tool.name);
  assert.deepEqual(names, [...names].sort(), 'sorted like tools/list');

  // A fresh snapshot each call: a disabled tool leaves the next one.
  server.catalog.getTool('echo')!.enabled = false;
  server.catalog.touched('tools');
  assert.equal(
    view.tools().some((info) => info.tool.name === 'echo'),
    false,
  );
  assert.ok(
    tools.some((info) => info.tool.name === 'echo'),
    'the earlier snapshot is unchanged',
  );
});

test('calls through the view take the normal path and are logged with via: "code"; direct calls are not', async (t) => {
  const { client, security, readLog } = await setup(t);
  const direct = await client.callTool({ name: 'echo', arguments: { message: 'direct' } });
  assert.equal(firstText(direct), 'direct');
  const viaCode = await client.callTool({
    name: 'run_by_code',
    arguments: { tool: 'echo', args: { message: 'from code' } },
  });
  assert.equal(firstText(viaCode), 'from code');

  // The pre-call validator sees calls from code too.
  security.setPreCallValidator((tool, params) =>
    tool === 'echo' && params.message === 'forbidden' ? 'not from code either' : null,
  );
  const refused = await client.callTool({
    name: 'run_by_code',
    arguments: { tool: 'echo', args: { message: 'forbidden' } },
  });
  assert.equal(firstText(refused), 'Rejected: not from code either');
  // Argument validation too: an isError result naming the field.
  const bad = await client.callTool({
    name: 'run_by_code',
    arguments: { tool: 'echo', args: { message: 42 } },
  });
  assert.equal(bad.isError, true);
  assert.match(
    firstText(bad),
    /Input validation error: Invalid arguments for tool echo: .*message/,
  );

  const log = await readLog();
  const echoes = log.filter((entry) => entry.tool === 'echo');
  assert.deepEqual(
    echoes.map((entry) => [entry.params.message, entry.outcome, entry.via]),
    [
      ['direct', 'ok', undefined],
      ['from code', 'ok', 'code'],
      ['forbidden', 'rejected', 'code'],
      [42, 'error', 'code'],
    ],
  );
  assert.equal(
    log.find((entry) => entry.tool === 'run_by_code')?.via,
    undefined,
    'the outer call was direct',
  );
});

test('an unknown or unloaded tool rejects with InvalidParams, as tools/call does', async (t) => {
  const { server, client } = await setup(t);
  const missing = await client.callTool({
    name: 'run_by_code',
    arguments: { tool: 'no_such_tool' },
  });
  assert.equal(
    firstText(missing),
    `thrown ${ProtocolErrorCode.InvalidParams}: Tool no_such_tool not found`,
  );
  await server.registry.unloadPlugin('kitchen');
  const gone = await client.callTool({
    name: 'run_by_code',
    arguments: { tool: 'echo', args: { message: 'x' } },
  });
  assert.equal(firstText(gone), `thrown ${ProtocolErrorCode.InvalidParams}: Tool echo not found`);
});

test('onChange hears tool changes after they are applied, and stops after unsubscribing', async (t) => {
  const { server, view } = await setup(t);
  const heard: boolean[] = [];
  const stop = view.onChange(() => heard.push(view.tools().some((i) => i.tool.name === 'echo')));
  view.onChange(() => {
    throw new Error('a broken listener disturbs nobody');
  });
  await server.registry.unloadPlugin('kitchen');
  assert.deepEqual(heard, [false], 'the listener saw the catalog after the unload');
  await server.registry.loadPlugin('kitchen');
  assert.deepEqual(heard, [false, true]);
  stop();
  await server.registry.unloadPlugin('kitchen');
  assert.deepEqual(heard, [false, true]);
});

test('search finds tools by meaning-bearing words and restricts to given plugins', async (t) => {
  const { view, server } = await setup(t);
  const hits = view.search('add numbers');
  assert.equal(hits[0]?.tool.name, 'add');
  assert.equal(hits[0]?.plugin, 'kitchen');
  assert.ok(hits[0].score > 0);
  assert.deepEqual(view.search('add numbers', { plugins: ['runner'] }), []);
  assert.deepEqual(view.search('zzqx nothing matches'), []);
  assert.deepEqual(view.search('   '), []);
  assert.equal(view.search('echo', { limit: 1 }).length, 1);
  // Rebuilt after a change: an unloaded plugin's tools are no longer found.
  await server.registry.unloadPlugin('kitchen');
  assert.equal(
    view.search('add numbers').some((hit) => hit.tool.name === 'add'),
    false,
  );
});

test("the gate applies to calls through the view with the caller's own unlocks, never another's", async (t) => {
  const secret = newSecret();
  process.env.MCPBOX_TEST_VIEW_GATE = secret;
  t.after(() => {
    delete process.env.MCPBOX_TEST_VIEW_GATE;
  });
  const security = createSecurity({
    ...NO_OAUTH,
    gate: { groups: { ops: { secret_ref: 'MCPBOX_TEST_VIEW_GATE', tools: ['echo'] } } },
  });
  t.after(() => security.close());
  const server = await kitchenServer();
  t.after(() => server.close());
  security.install(server);
  await server.registry.loadPlugin('runner', { module: codeRunner({}) });
  const alice = await inMemoryClient(server);
  const bob = await inMemoryClient(server);
  t.after(() => Promise.all([alice.close(), bob.close()]));
  const echoFromCode = (client: typeof alice) =>
    client.callTool({ name: 'run_by_code', arguments: { tool: 'echo', args: { message: 'm' } } });

  assert.match(firstText(await echoFromCode(alice)), /^Group 'ops' is locked/);
  const unlocked = await alice.callTool({
    name: 'gate_unlock',
    arguments: { group: 'ops', code: codeAt(secret, Date.now()) },
  });
  assert.match(firstText(unlocked), /^Group 'ops' unlocked/);
  assert.equal(firstText(await echoFromCode(alice)), 'm');
  assert.match(firstText(await echoFromCode(bob)), /^Group 'ops' is locked/, 'bob has no unlock');
});
