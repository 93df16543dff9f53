// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests write literal ${VAR} placeholders
// Mirroring real upstream MCP servers (server-everything, server-memory, server-filesystem, the
// upstream-tools fixture and the 2026-only upstream-modern fixture) into a real framework
// server, seen through a real SDK Client (in-memory transport on our side only, or the
// framework's own stdio server as a process for 2026 clients).

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { descendants, firstText, killAll, stopGroup, waitUntilGone } from '@mcpbox/test-utils';
import type { Progress, Tool } from '@modelcontextprotocol/client';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { z } from 'zod';
import {
  everythingBin,
  fixtureParams,
  fixturePath,
  repoRoot,
  startEverythingHttp,
  startModernHttp,
} from '../__fixtures__/upstream-processes.ts';
import type { UpstreamParams } from '../client/params.ts';
import type { Logger } from '../logging/index.ts';
import { createServer, type McpboxServer } from '../server.ts';
import { type UpstreamPluginOptions, upstreamPlugin } from './upstream.ts';
import { needsTasks } from './upstreamMirror.ts';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** A logger that keeps lines and can wait for one. */
function recordingLogger(): Logger & {
  lines: string[];
  waitFor(pattern: RegExp, count?: number): Promise<void>;
} {
  const lines: string[] = [];
  const keep = (level: string) => (message: string) => {
    lines.push(`${level} ${message}`);
  };
  return {
    lines,
    debug: keep('debug'),
    info: keep('info'),
    warn: keep('warn'),
    error: keep('error'),
    async waitFor(pattern, count = 1) {
      for (let i = 0; i < 600; i++) {
        if (lines.filter((line) => pattern.test(line)).length >= count) return;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      assert.fail(`no log line ${pattern} (x${count}) in:\n${lines.join('\n')}`);
    },
  };
}

/** Keeps every field as sent: what a server really put on the wire. */
const Raw = z.object({}).passthrough();
const byName = <T extends { name: string }>(items: T[]) =>
  [...items].sort((a, b) => a.name.localeCompare(b.name));

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
  const client = await clientOf(t, server);
  return { server, client, plugin };
}

/**
 * A 2025 client of `server` (the in-memory transport serves that era) that answers elicitations
 * and sampling requests, noting each question it was asked.
 */
async function clientOf(
  t: { after: (fn: () => Promise<void>) => void },
  server: McpboxServer,
  asked: string[] = [],
): Promise<Client> {
  const [ours, theirs] = InMemoryTransport.createLinkedPair();
  await server.connect(ours);
  const client = new Client(
    { name: 'test', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} }, sampling: {} } },
  );
  answerQuestions(client, asked);
  await client.connect(theirs);
  t.after(() => client.close());
  return client;
}

/** Accepts every form with `{ ok: true, name: 'Bo', colour: 'red' }`; samples as `down-model`. */
function answerQuestions(client: Client, asked: string[]): void {
  client.setRequestHandler('elicitation/create', async ({ params }) => {
    asked.push(params.message);
    return { action: 'accept', content: { ok: true, name: 'Bo', colour: 'red' } };
  });
  client.setRequestHandler('sampling/createMessage', async ({ params }) => {
    const first = params.messages[0].content as { text?: string };
    asked.push(`sample: ${first.text}`);
    return { model: 'down-model', role: 'assistant', content: { type: 'text', text: 'tiny' } };
  });
}

/** The fields of a tool the plugin API lists today (see the whole-object test below). */
function listedFields(tool: Tool): Partial<Tool> {
  const { name, title, description, inputSchema, outputSchema, annotations, _meta } = tool;
  return JSON.parse(
    JSON.stringify({ name, title, description, inputSchema, outputSchema, annotations, _meta }),
  );
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
    const named = new Map<string, Tool>(mirrored.map((tool) => [tool.name, tool]));
    for (const tool of upstream) {
      const copy = named.get(tool.name)!;
      assert.deepEqual(copy.inputSchema, tool.inputSchema, `input schema of ${tool.name}`);
      assert.deepEqual(copy.outputSchema, tool.outputSchema, `output schema of ${tool.name}`);
      assert.deepEqual(listedFields(copy), listedFields(tool), `definition of ${tool.name}`);
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
      { onprogress: (p) => progress.push(p) },
    );
    assert.match(firstText(result), /Long running operation completed/);
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
    const uriOrder = <T extends { uri: string }>(items: T[]) =>
      [...items].sort((a, b) => a.uri.localeCompare(b.uri));
    assert.deepEqual(uriOrder(resources), uriOrder(await connection.listResources()));
    const read = await client.readResource({ uri: resources[0].uri });
    assert.deepEqual(read, await connection.readResource({ uri: resources[0].uri }));
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.deepEqual(byName(resourceTemplates), byName(await connection.listResourceTemplates()));
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
      client.callTool(
        { name: 'sleep', arguments: { ms: 30_000 } },
        {
          signal: controller.signal,
          onprogress: () => controller.abort('stop'),
        },
      ),
    );
    let count = '0';
    for (let i = 0; i < 100 && count === '0'; i++) {
      count = firstText(await client.callTool({ name: 'cancellations', arguments: {} }));
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
      JSON.parse(firstText(await client.callTool({ name: 'whoami', arguments: {} }))).pid as number;
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
      firstText(failed),
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
      JSON.parse(firstText(await client.callTool({ name: 'whoami', arguments: {} }))).pid as number;
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
    const pid = JSON.parse(firstText(await client.callTool({ name: 'whoami', arguments: {} }))).pid;
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
  assert.deepEqual(
    byName(tools).map(listedFields),
    byName(upstream.filter((tool) => !needsTasks(tool))).map(listedFields),
  );
  const echo = await client.callTool({ name: 'echo', arguments: { message: 'http mirror' } });
  assert.deepEqual(echo.content, [{ type: 'text', text: 'Echo: http mirror' }]);
});

/** The 2026-only fixture over HTTP, stopped (and checked gone) when the test ends. */
async function modernHttp(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const { child, url } = await startModernHttp();
  t.after(async () => {
    stopGroup(child);
    assert.deepEqual(await waitUntilGone([child.pid!], 5_000), []);
  });
  return url;
}

/** confirm (one round), interview (two, with requestState) and summarize (sampling). */
async function askingTools(client: Client, prefix = ''): Promise<string[]> {
  const texts: string[] = [];
  for (const [name, args] of [
    ['confirm', { action: 'go' }],
    ['interview', {}],
    ['summarize', { topic: 'eras' }],
  ] as const) {
    texts.push(firstText(await client.callTool({ name: `${prefix}${name}`, arguments: args })));
  }
  return texts;
}

const ANSWERED = [
  'go: accept {"ok":true,"name":"Bo","colour":"red"}',
  'Bo likes red',
  'summary by down-model: tiny',
];
const QUESTIONS = ['Really go?', 'Your name?', 'Your colour?', 'sample: Summarize eras'];

describe('upstreamPlugin with a 2026-only upstream (SDK v2, legacy rejected)', () => {
  test('over stdio: listed and called; its questions reach a 2025 client, the answers flow back; a real change is logged', async (t) => {
    const logger = recordingLogger();
    const { client, plugin } = await mirrorOf(t, 'modern', fixtureParams('upstream-modern.ts'), {
      logger,
    });
    assert.equal(plugin.connection?.protocolEra, 'modern');
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((tool) => tool.name),
      ['add_tool', 'confirm', 'echo', 'interview', 'summarize', 'wait', 'whoami'],
    );
    const echo = await client.callTool({ name: 'echo', arguments: { text: 'mirrored' } });
    assert.equal(firstText(echo), 'echo: mirrored');
    const raw = (await client.request({ method: 'tools/list', params: {} } as never, Raw)) as {
      tools: Array<Record<string, unknown>>;
    };
    const listed = raw.tools.find((tool) => tool.name === 'echo')!;
    assert.deepEqual(listed['x-future'], { kept: ['as', 'sent'] }, 'a field no revision defines');
    assert.deepEqual(
      Object.keys(listed.inputSchema as object),
      ['required', 'type', 'properties', 'additionalProperties'],
      'the JSON Schema as sent, key order included',
    );
    const asked: string[] = [];
    answerQuestions(client, asked);
    assert.deepEqual(await askingTools(client), ANSWERED);
    assert.deepEqual(asked, QUESTIONS);

    await client.callTool({ name: 'add_tool', arguments: { name: 'late' } });
    await logger.waitFor(/changed its tools/);
    assert.ok(
      logger.lines.includes(
        "warn upstream 'modern' changed its tools (added late); reload plugin 'modern' to mirror the change",
      ),
      logger.lines.join('\n'),
    );
  });

  test('over HTTP: listed and called; its questions reach a 2025 client; a list change is re-published', async (t) => {
    const url = await modernHttp(t);
    const server = createServer({ logger: silent });
    const changes: string[] = [];
    const plugin = upstreamPlugin(
      'modern-http',
      { url },
      {
        logger: silent,
        reload: (name) => server.registry.reloadPlugin(name),
        onListChanged: (kind) => changes.push(kind),
      },
    );
    t.after(async () => {
      await plugin.dispose();
      await server.close();
    });
    assert.equal(
      (await server.registry.loadPlugin('modern-http', { module: plugin })).error,
      undefined,
    );
    const asked: string[] = [];
    const client = await clientOf(t, server, asked);
    let notified = 0;
    client.setNotificationHandler('notifications/tools/list_changed', async () => {
      notified += 1;
    });
    assert.equal(plugin.connection?.transportKind, 'streamableHttp');
    assert.equal(plugin.connection?.protocolEra, 'modern');
    assert.equal(
      firstText(await client.callTool({ name: 'echo', arguments: { text: 'h' } })),
      'echo: h',
    );
    assert.deepEqual(await askingTools(client), ANSWERED);
    assert.deepEqual(asked, QUESTIONS);

    await client.callTool({ name: 'add_tool', arguments: { name: 'late' } });
    for (let i = 0; i < 400 && changes.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    assert.deepEqual(changes, ['tools']);
    assert.ok(notified > 0, 'the client was told');
    const { tools } = await client.listTools();
    assert.ok(
      tools.some((tool) => tool.name === 'late'),
      'the new tool is mirrored',
    );
    assert.equal(firstText(await client.callTool({ name: 'late', arguments: {} })), 'late');
    assert.equal(plugin.connection?.starts, 1, 'over the same connection');
  });
});

/** The framework's stdio server as a process, mirroring `upstream`, with a 2026 client on it. */
async function modernClientThroughStdio(
  t: { after: (fn: () => Promise<void>) => void },
  upstream: string,
  asked: string[],
): Promise<Client> {
  const client = new Client(
    { name: 'modern-test', version: '1.0.0' },
    {
      capabilities: { elicitation: { form: {} }, sampling: {} },
      versionNegotiation: { mode: { pin: '2026-07-28' } },
    },
  );
  answerQuestions(client, asked);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', fixturePath('stdioServer.ts')],
    cwd: repoRoot,
    env: { ...(process.env as Record<string, string>), MIRROR_UPSTREAM: upstream },
    stderr: 'ignore',
  });
  t.after(async () => {
    const pid = transport.pid;
    const family = pid ? [pid, ...descendants(pid)] : [];
    await client.close();
    const left = await waitUntilGone(family, 10_000);
    killAll(left);
    assert.deepEqual(left, [], 'the server and its upstream ended with the client');
  });
  await client.connect(transport);
  assert.equal(client.getProtocolEra(), 'modern');
  return client;
}

describe('a 2026 client of a mirror (the framework served over stdio)', () => {
  test('questions from a 2026-only upstream reach it as input_required rounds, answers flow back', async (t) => {
    const asked: string[] = [];
    const client = await modernClientThroughStdio(t, 'upstream-modern.ts', asked);
    assert.deepEqual(await askingTools(client, 'up_'), ANSWERED);
    assert.deepEqual(asked, QUESTIONS);
  });

  test('questions from a 2025 upstream (server-everything) reach it too', async (t) => {
    const asked: string[] = [];
    const client = await modernClientThroughStdio(t, 'everything', asked);
    const elicited = await client.callTool({
      name: 'up_trigger-elicitation-request',
      arguments: {},
    });
    assert.match(JSON.stringify(elicited.content), /Name: Bo/);
    const sampled = await client.callTool({
      name: 'up_trigger-sampling-request',
      arguments: { prompt: 'hello' },
    });
    assert.match(firstText(sampled), /"text": "tiny"/);
    assert.equal(asked.length, 2);
    assert.equal(asked[0], 'Please provide inputs for the following fields:');
    assert.match(asked[1], /^sample: .*hello$/);
  });
});

test('server-everything announces a tools change on every connect: only a real difference is reported', async (t) => {
  const logger = recordingLogger();
  const { client, plugin } = await mirrorOf(
    t,
    'everything',
    { command: everythingBin, args: ['stdio'] },
    {
      logger,
    },
  );
  const settled = /debug upstream 'everything' announced a change to its tools; nothing changed/;
  await logger.waitFor(settled);
  // A restart is a new connect, and server-everything announces again.
  const first = plugin.connection!.pid!;
  process.kill(first, 'SIGKILL');
  for (let i = 0; i < 400 && plugin.connection?.connected; i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const echo = await client.callTool({ name: 'echo', arguments: { message: 'again' } });
  assert.deepEqual(echo.content, [{ type: 'text', text: 'Echo: again' }]);
  assert.notEqual(plugin.connection!.pid, first);
  await logger.waitFor(settled, 2);
  assert.deepEqual(
    logger.lines.filter((line) => /changed its/.test(line)),
    [],
    'no "changed its tools; reload" warning',
  );
});

describe('mirrored definitions keep every field (server-everything, server-memory, server-filesystem)', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'mcpbox-mirror-'));
  const servers: Array<[string, UpstreamParams]> = [
    ['everything', { command: everythingBin, args: ['stdio'] }],
    [
      'memory',
      {
        command: `${repoRoot}node_modules/.bin/mcp-server-memory`,
        env: { MEMORY_FILE_PATH: join(scratch, 'memory.jsonl') },
      },
    ],
    [
      'filesystem',
      { command: `${repoRoot}node_modules/.bin/mcp-server-filesystem`, args: [scratch] },
    ],
  ];
  after(() => rmSync(scratch, { recursive: true, force: true }));

  /** What the client really received, and what the upstream really sent, for each list. */
  async function bothSides(
    t: { after: (fn: () => Promise<void>) => void },
    name: string,
    params: UpstreamParams,
  ) {
    const { client, plugin } = await mirrorOf(t, name, params);
    const raw = async (target: Client, method: string) =>
      (await target.request({ method, params: {} } as never, Raw)) as Record<string, unknown[]>;
    const upstream = await plugin.connection!.client();
    const caps = upstream.getServerCapabilities() ?? {};
    return {
      tools: [(await raw(client, 'tools/list')).tools, await plugin.connection!.listTools()],
      prompts: caps.prompts
        ? [(await raw(client, 'prompts/list')).prompts, await plugin.connection!.listPrompts()]
        : [[], []],
      resources: caps.resources
        ? [
            (await raw(client, 'resources/list')).resources,
            await plugin.connection!.listResources(),
          ]
        : [[], []],
      templates: caps.resources
        ? [
            (await raw(client, 'resources/templates/list')).resourceTemplates,
            await plugin.connection!.listResourceTemplates(),
          ]
        : [[], []],
    } as Record<string, [Array<Record<string, unknown>>, Array<Record<string, unknown>>]>;
  }

  test('tool names and JSON Schemas byte for byte; resources and templates whole', async (t) => {
    for (const [name, params] of servers) {
      const sides = await bothSides(t, name, params);
      const [mirrored, sent] = sides.tools;
      const offered = sent.filter((tool) => !needsTasks(tool as Tool));
      assert.ok(offered.length > 0, `${name} lists tools`);
      const named = new Map(mirrored.map((tool) => [tool.name, tool]));
      assert.deepEqual([...named.keys()].sort(), offered.map((tool) => tool.name as string).sort());
      for (const tool of offered) {
        const copy = named.get(tool.name)!;
        for (const key of ['inputSchema', 'outputSchema']) {
          assert.equal(
            JSON.stringify(copy[key]),
            JSON.stringify(tool[key]),
            `${name}: ${String(tool.name)}.${key}`,
          );
        }
      }
      const order = (items: Array<Record<string, unknown>>) =>
        items.map((item) => JSON.stringify(item)).sort();
      assert.deepEqual(order(sides.resources[0]), order(sides.resources[1]), `${name}: resources`);
      assert.deepEqual(order(sides.templates[0]), order(sides.templates[1]), `${name}: templates`);
    }
  });

  test('whole tool and prompt objects, every field (execution, icons, ones this version does not know)', async (t) => {
    for (const [name, params] of servers) {
      const sides = await bothSides(t, name, params);
      const offered = sides.tools[1].filter((tool) => !needsTasks(tool as Tool));
      assert.ok(
        offered.some((tool) => tool.execution !== undefined),
        `${name} sends execution (the field issue 15 saw dropped)`,
      );
      // Key order aside: the schemas, compared byte for byte above, may move within a tool.
      const named = (items: Array<Record<string, unknown>>) => byName(items as Tool[]);
      assert.deepEqual(named(sides.tools[0]), named(offered), `${name}: tools`);
      assert.deepEqual(named(sides.prompts[0]), named(sides.prompts[1]), `${name}: prompts`);
    }
  });
});
