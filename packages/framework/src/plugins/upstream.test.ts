// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests write literal ${VAR} placeholders
// Mirroring real upstream MCP servers (server-everything, the upstream-tools fixture) into a real
// framework server, seen through a real SDK Client (in-memory transport on our side only).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Progress, Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  descendants,
  everythingBin,
  fixtureParams,
  killAll,
  startEverythingHttp,
  stopGroup,
  waitUntilGone,
} from '../__fixtures__/upstream-processes.ts';
import type { UpstreamParams } from '../client/params.ts';
import type { Logger } from '../logging/index.ts';
import { createServer, type McpboxServer } from '../server.ts';
import { needsTasks, type UpstreamPluginOptions, upstreamPlugin } from './upstream.ts';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

interface Mirror {
  server: McpboxServer;
  client: Client;
  plugin: ReturnType<typeof upstreamPlugin>;
}

/** A framework server with the upstream mirrored as plugin `name`, and a client connected to it. */
async function mirrorOf(
  t: { after: (fn: () => Promise<void>) => void },
  name: string,
  params: UpstreamParams,
  options: UpstreamPluginOptions & { prefix?: string } = {},
): Promise<Mirror> {
  const server = createServer({ logger: silent });
  const plugin = upstreamPlugin(name, params, { logger: silent, ...options });
  const pids = new Set<number>();
  const remember = () => {
    const pid = plugin.connection?.pid;
    if (pid) for (const p of [pid, ...descendants(pid)]) pids.add(p);
  };
  const timer = setInterval(remember, 200);
  t.after(async () => {
    clearInterval(timer);
    remember();
    await plugin.dispose();
    await server.close();
    killAll(await waitUntilGone([...pids], 5_000));
  });
  const loaded = await server.registry.loadPlugin(name, { module: plugin, prefix: options.prefix });
  assert.equal(loaded.error, undefined);
  const [ours, theirs] = InMemoryTransport.createLinkedPair();
  await server.connect(ours);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(theirs);
  t.after(() => client.close());
  return { server, client, plugin };
}

const textOf = (result: Record<string, unknown>) =>
  (result.content as Array<{ type: string; text: string }>)[0].text;

/**
 * A tool definition as the framework can list it. `execution.taskSupport: 'forbidden'` is what
 * an absent `execution` means (MCP tasks, which the framework does not offer); the plugin API
 * has no field for it, so it is compared apart.
 */
function comparable(tool: Tool): Tool {
  const { execution, ...rest } = tool;
  assert.ok(
    execution === undefined || execution.taskSupport === 'forbidden',
    `${tool.name}: execution ${JSON.stringify(execution)}`,
  );
  return rest;
}

describe('upstreamPlugin with server-everything over stdio', () => {
  test('mirrors every tool with its definition unchanged, and calls echo', async (t) => {
    const { client, plugin } = await mirrorOf(t, 'everything', {
      command: everythingBin,
      args: ['stdio'],
    });
    const everything = await plugin.connection!.listTools();
    const upstream = everything.filter((tool) => !needsTasks(tool));
    assert.deepEqual(
      everything.filter(needsTasks).map((tool) => tool.name),
      ['simulate-research-query'],
      'the one task-only tool is left out',
    );
    const { tools: mirrored } = await client.listTools();
    assert.deepEqual(
      mirrored.map((tool) => tool.name).sort(),
      upstream.map((tool) => tool.name).sort(),
    );
    const byName = new Map<string, Tool>(mirrored.map((tool) => [tool.name, tool]));
    for (const tool of upstream) {
      const copy = byName.get(tool.name)!;
      assert.deepEqual(copy.inputSchema, tool.inputSchema, `input schema of ${tool.name}`);
      assert.deepEqual(copy.outputSchema, tool.outputSchema, `output schema of ${tool.name}`);
      assert.deepEqual(copy, comparable(tool), `definition of ${tool.name}`);
    }
    assert.ok(
      upstream.some((tool) => tool.outputSchema),
      'an output schema is among them',
    );
    const echo = await client.callTool({ name: 'echo', arguments: { message: 'via mirror' } });
    assert.deepEqual(echo.content, [{ type: 'text', text: 'Echo: via mirror' }]);
  });

  test('structuredContent passes through; progress reaches the caller', async (t) => {
    const { client } = await mirrorOf(t, 'everything', { command: everythingBin, args: ['stdio'] });
    const structured = await client.callTool({
      name: 'get-structured-content',
      arguments: { location: 'Chicago' },
    });
    const weather = structured.structuredContent as Record<string, unknown> | undefined;
    assert.equal(typeof weather?.temperature, 'number');
    const progress: Progress[] = [];
    const result = await client.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } },
      undefined,
      { onprogress: (p) => progress.push(p) },
    );
    assert.match(textOf(result), /Long running operation completed/);
    assert.deepEqual(
      progress.map((p) => p.progress),
      [1, 2, 3],
    );
  });

  test('mirrors resources, resource templates and prompts', async (t) => {
    const { client, plugin } = await mirrorOf(t, 'everything', {
      command: everythingBin,
      args: ['stdio'],
    });
    const connection = plugin.connection!;
    const { resources } = await client.listResources();
    assert.deepEqual(resources, await connection.listResources());
    const read = await client.readResource({ uri: resources[0].uri });
    assert.deepEqual(read, await connection.readResource({ uri: resources[0].uri }));
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.deepEqual(resourceTemplates, await connection.listResourceTemplates());
    const dynamic = await client.readResource({ uri: 'demo://resource/dynamic/text/7' });
    assert.equal(dynamic.contents[0].uri, 'demo://resource/dynamic/text/7');
    const { prompts } = await client.listPrompts();
    const upstreamPrompts = await connection.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name).sort(), upstreamPrompts.map((p) => p.name).sort());
    const argsPrompt = prompts.find((p) => p.name === 'args-prompt');
    assert.deepEqual(
      argsPrompt?.arguments?.map((a) => [a.name, a.required ?? false]),
      [
        ['city', true],
        ['state', false],
      ],
    );
    const got = await client.getPrompt({ name: 'args-prompt', arguments: { city: 'Oslo' } });
    assert.deepEqual(
      got,
      await connection.getPrompt({ name: 'args-prompt', arguments: { city: 'Oslo' } }),
    );
  });

  test('prefixed names still call the upstream by its own names', async (t) => {
    const { client } = await mirrorOf(
      t,
      'everything',
      { command: everythingBin, args: ['stdio'] },
      { prefix: 'ev' },
    );
    const { tools } = await client.listTools();
    assert.ok(tools.some((tool) => tool.name === 'ev_echo'));
    const echo = await client.callTool({ name: 'ev_echo', arguments: { message: 'p' } });
    assert.deepEqual(echo.content, [{ type: 'text', text: 'Echo: p' }]);
    const prompt = await client.getPrompt({ name: 'ev_simple-prompt' });
    assert.ok(prompt.messages.length > 0);
  });
});

describe('upstreamPlugin with the upstream-tools fixture', () => {
  test('an upstream isError result comes back unchanged', async (t) => {
    const { client } = await mirrorOf(t, 'tools', fixtureParams('upstream-tools.ts'));
    const result = await client.callTool({ name: 'fail', arguments: {} });
    assert.deepEqual(result, {
      content: [{ type: 'text', text: 'it failed on purpose' }],
      structuredContent: { reason: 'on purpose' },
      isError: true,
    });
  });

  test('cancellation by the caller reaches the upstream', async (t) => {
    const { client } = await mirrorOf(t, 'tools', fixtureParams('upstream-tools.ts'));
    const controller = new AbortController();
    await assert.rejects(
      client.callTool({ name: 'sleep', arguments: { ms: 30_000 } }, undefined, {
        signal: controller.signal,
        onprogress: () => controller.abort('stop'),
      }),
    );
    let count = '0';
    for (let i = 0; i < 100 && count === '0'; i++) {
      count = textOf(await client.callTool({ name: 'cancellations', arguments: {} }));
      if (count === '0') await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(count, '1');
  });

  test('an upstream that died is restarted by the next call; a failed restart is a clear isError', async (t) => {
    const env: Record<string, string | undefined> = { FIXTURE_MODE: 'normal' };
    const { client, plugin } = await mirrorOf(
      t,
      'tools',
      fixtureParams('upstream-tools.ts', { MODE: '${FIXTURE_MODE}' }),
      { env },
    );
    const whoami = async () =>
      JSON.parse(textOf(await client.callTool({ name: 'whoami', arguments: {} }))).pid as number;
    const first = await whoami();
    process.kill(first, 'SIGKILL');
    for (let i = 0; i < 200 && plugin.connection?.connected; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const second = await whoami();
    assert.notEqual(second, first, 'restarted transparently');

    // Mid-call death: the call in flight fails clearly, the next one restarts.
    const died = await client.callTool({ name: 'exit', arguments: { code: 1 } });
    assert.deepEqual(died, {
      content: [
        {
          type: 'text',
          text: "upstream 'tools' is not running (it stopped during tools/call); it will be restarted on the next call",
        },
      ],
      isError: true,
    });
    // Now make the restart fail: the placeholder no longer resolves.
    env.FIXTURE_MODE = undefined;
    const failed = await client.callTool({ name: 'whoami', arguments: {} });
    assert.equal(failed.isError, true);
    assert.match(
      textOf(failed),
      /^upstream 'tools': env\.MODE: environment variable FIXTURE_MODE is not set/,
    );
    env.FIXTURE_MODE = 'normal';
    assert.ok((await whoami()) > 0, 'and recovers once it can start again');
  });

  test('registering the same module again (reload) keeps the running upstream', async (t) => {
    const { server, client, plugin } = await mirrorOf(
      t,
      'tools',
      fixtureParams('upstream-tools.ts'),
    );
    const pidOf = async () =>
      JSON.parse(textOf(await client.callTool({ name: 'whoami', arguments: {} }))).pid as number;
    const before = await pidOf();
    const reloaded = await server.registry.reloadPlugin('tools');
    assert.equal(reloaded.error, undefined);
    assert.equal(await pidOf(), before);
    assert.equal(plugin.connection?.starts, 1);
  });

  test('unload + dispose end the upstream; its entries leave the catalog', async (t) => {
    const { server, client, plugin } = await mirrorOf(
      t,
      'tools',
      fixtureParams('upstream-tools.ts'),
    );
    const pid = JSON.parse(textOf(await client.callTool({ name: 'whoami', arguments: {} }))).pid;
    const guard = plugin.connection!.pid!;
    const unloaded = await server.registry.unloadPlugin('tools');
    assert.ok(unloaded.removed.includes('whoami'));
    await plugin.dispose();
    assert.equal(plugin.connection, undefined);
    assert.deepEqual(await waitUntilGone([guard, pid], 10_000), []);
    const { tools } = await client.listTools();
    assert.equal(
      tools.some((tool) => tool.name === 'whoami'),
      false,
    );
    await plugin.dispose(); // idempotent
  });

  test('a load whose upstream cannot start fails clearly and leaves nothing behind', async () => {
    const server = createServer({ logger: silent });
    try {
      const plugin = upstreamPlugin(
        'ghost',
        { command: 'no-such-mcp-server-xyz' },
        { logger: silent },
      );
      const result = await server.registry.loadPlugin('ghost', { module: plugin });
      assert.equal(result.ok, false);
      assert.equal(
        result.error,
        "Plugin 'ghost' register() failed: cannot start upstream 'ghost': command 'no-such-mcp-server-xyz' not found (searched PATH)",
      );
      assert.equal(plugin.connection, undefined);
      assert.equal(server.catalog.size.tools, 0);
    } finally {
      await server.close();
    }
  });
});

test('upstreamPlugin mirrors server-everything over Streamable HTTP', async (t) => {
  const { child, port } = await startEverythingHttp('streamableHttp');
  t.after(() => stopGroup(child));
  const { client, plugin } = await mirrorOf(t, 'everything-http', {
    url: `http://127.0.0.1:${port}/mcp`,
  });
  const { tools } = await client.listTools();
  const upstream = await plugin.connection!.listTools();
  assert.deepEqual(tools, upstream.filter((tool) => !needsTasks(tool)).map(comparable));
  const echo = await client.callTool({ name: 'echo', arguments: { message: 'http mirror' } });
  assert.deepEqual(echo.content, [{ type: 'text', text: 'Echo: http mirror' }]);
});
