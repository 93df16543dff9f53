import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  codeAt,
  descendants,
  firstText,
  killAll,
  newSecret,
  startIntrospectionServer,
  waitUntilGone,
} from '@mcpbox/test-utils';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { inMemoryClient } from './__fixtures__/testServer.ts';
import { everythingBin } from './__fixtures__/upstream-processes.ts';
import { ConfigError, loadConfig } from './config/index.ts';
import { startHealthServer } from './health/index.ts';
import { upstreamPlugin } from './plugins/upstream.ts';
import { createSecurity, type SecurityConfig } from './security.ts';
import { createServer, type McpboxServer } from './server.ts';
import { JsonlToolLogger } from './toollog/jsonl.ts';

type After = { after: (fn: () => Promise<void> | void) => void };

const REPO_PLUGINS = fileURLToPath(new URL('../../../plugins', import.meta.url));

const noAuth: SecurityConfig = {
  transport: 'stdio',
  oauth_enabled: true,
  oauth_server_url: undefined,
  oauth_public_url: undefined,
  oauth_cache_ttl: 28800,
  oauth_required_scopes: [],
  metrics: true,
};

/**
 * A JSONL tool logger in a temp folder. The folder goes after the logger has closed: node:test
 * runs after-hooks in the order they were registered, and a flush after the removal (the
 * security's close()) would make the folder again.
 */
async function tempToolLogger(t: After) {
  const dir = await mkdtemp(join(tmpdir(), 'security-'));
  const toolLogger = new JsonlToolLogger({ dir });
  t.after(async () => {
    await toolLogger.close();
    await rm(dir, { recursive: true, force: true });
  });
  return toolLogger;
}

async function serverWithEcho(t: After, options: Parameters<typeof createServer>[0] = {}) {
  const server = createServer({ name: 'secured', pluginDirs: [REPO_PLUGINS], ...options });
  t.after(() => server.close());
  const loaded = await server.registry.loadPlugin('echo');
  assert.ok(loaded.ok, loaded.error);
  return server;
}

async function readLog(logger: JsonlToolLogger) {
  await logger.flush();
  const text = await readFile(logger.path, 'utf8');
  return text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

describe('one interceptor for every tool call', () => {
  test('validator rejections, errors and successes are answered, logged and counted', async (t) => {
    const toolLogger = await tempToolLogger(t);
    const security = createSecurity(noAuth, { toolLogger });
    t.after(() => security.close());
    const server = await serverWithEcho(t);
    server.registerTool('boom', {}, () => {
      throw new Error('exploded');
    });
    security.install(server);
    security.setPreCallValidator(async (tool, params) => {
      if (tool === 'echo_upper') throw new Error('validator bug');
      return String(params.message ?? '').includes('forbidden') ? 'forbidden word' : null;
    });
    const client = await inMemoryClient(server);
    t.after(() => client.close());

    assert.equal(
      firstText(await client.callTool({ name: 'echo', arguments: { message: 'hi' } })),
      'hi',
    );
    const rejected = await client.callTool({
      name: 'echo',
      arguments: { message: 'a forbidden one' },
    });
    assert.equal(rejected.isError, true);
    assert.equal(firstText(rejected), 'Rejected: forbidden word');
    const failClosed = await client.callTool({ name: 'echo_upper', arguments: { message: 'x' } });
    assert.equal(firstText(failClosed), 'Rejected: the pre-call validator failed');
    const boom = await client.callTool({ name: 'boom', arguments: {} });
    assert.equal(boom.isError, true);
    assert.equal(firstText(boom), 'exploded');

    const log = await readLog(toolLogger);
    assert.deepEqual(
      log.map((e) => [e.tool, e.plugin, e.outcome, e.ok, e.result]),
      [
        ['echo', 'echo', 'ok', true, 'hi'],
        ['echo', 'echo', 'rejected', false, 'Rejected: forbidden word'],
        ['echo_upper', 'echo', 'rejected', false, 'Rejected: the pre-call validator failed'],
        ['boom', 'server', 'error', false, 'exploded'],
      ],
    );
    const metrics = await security.metrics!.text();
    assert.match(metrics, /^mcpbox_tool_calls_total\{tool="echo",plugin="echo",outcome="ok"\} 1$/m);
    assert.match(
      metrics,
      /^mcpbox_tool_calls_total\{tool="echo",plugin="echo",outcome="rejected"\} 1$/m,
    );
    assert.match(
      metrics,
      /^mcpbox_tool_calls_total\{tool="boom",plugin="server",outcome="error"\} 1$/m,
    );
    assert.match(metrics, /^mcpbox_sessions_open 1$/m);

    // Removing the validator lets the call through; swapping the logger takes effect at once.
    security.setPreCallValidator(undefined);
    security.setToolLogger(undefined);
    assert.equal(
      firstText(await client.callTool({ name: 'echo', arguments: { message: 'forbidden' } })),
      'forbidden',
    );
  });

  test("security's own log lines redact what a validator quotes from the arguments", async (t) => {
    const lines: string[] = [];
    const record = (msg: string, extra?: unknown) => lines.push(`${msg} ${JSON.stringify(extra)}`);
    const logger = { debug: record, info: record, warn: record, error: record };
    const security = createSecurity(noAuth, { logger });
    t.after(() => security.close());
    const server = await serverWithEcho(t);
    security.install(server);
    security.setPreCallValidator((tool, params) => {
      if (tool === 'echo_upper') throw new Error(`cannot parse ${String(params.message)}`);
      return `refused ${String(params.message)}`;
    });
    const client = await inMemoryClient(server);
    t.after(() => client.close());
    await client.callTool({ name: 'echo', arguments: { message: 'password=hush-one' } });
    await client.callTool({
      name: 'echo_upper',
      arguments: { message: 'postgres://u:hush-two@db/x' },
    });
    assert.equal(lines.length, 3, lines.join('\n'));
    assert.ok(
      lines.every((l) => !l.includes('hush-')),
      lines.join('\n'),
    );
    assert.match(lines[0], /refused password=\[REDACTED\]/);
    assert.match(lines[1], /postgres:\/\/u:\*\*\*@db/);
  });

  test('a server-wide gate protects the tools its groups name, whatever plugin owns them', async (t) => {
    const secret = newSecret();
    process.env.MCPBOX_TEST_GATE_OPS = secret;
    t.after(() => {
      delete process.env.MCPBOX_TEST_GATE_OPS;
    });
    const toolLogger = await tempToolLogger(t);
    const security = createSecurity(
      {
        ...noAuth,
        gate: { groups: { ops: { secret_ref: 'MCPBOX_TEST_GATE_OPS', tools: ['echo_upper'] } } },
      },
      { toolLogger },
    );
    t.after(() => security.close());
    const server = await serverWithEcho(t);
    security.install(server);
    const client = await inMemoryClient(server);
    t.after(() => client.close());

    const tools = (await client.listTools()).tools.map((x) => x.name).sort();
    assert.deepEqual(tools, ['echo', 'echo_upper', 'gate_lock', 'gate_status', 'gate_unlock']);
    const locked = await client.callTool({ name: 'echo_upper', arguments: { message: 'x' } });
    assert.equal(locked.isError, true);
    assert.match(firstText(locked), /^Group 'ops' is locked\. Call gate_unlock\(group='ops'/);
    assert.equal(
      firstText(await client.callTool({ name: 'echo', arguments: { message: 'free' } })),
      'free',
    );
    const code = codeAt(secret, Date.now());
    const unlocked = await client.callTool({
      name: 'gate_unlock',
      arguments: { group: 'ops', code },
    });
    assert.equal(firstText(unlocked), "Group 'ops' unlocked. Auto-lock after 2h of inactivity.");
    assert.equal(
      firstText(await client.callTool({ name: 'echo_upper', arguments: { message: 'x' } })),
      'X',
    );

    await toolLogger.flush();
    const logText = await readFile(toolLogger.path, 'utf8');
    assert.ok(logText.includes('"tool":"gate_unlock"'));
    assert.ok(!logText.includes(code), 'the TOTP code is redacted from the tool-call log');
    assert.match(await security.metrics!.text(), /^mcpbox_gate_unlocks_total\{group="ops"\} 1$/m);
  });
});

test('tools mirrored from a real upstream server (server-everything) pass the same checks', async (t) => {
  const toolLogger = await tempToolLogger(t);
  const security = createSecurity(noAuth, { toolLogger });
  t.after(() => security.close());
  const server = createServer({ name: 'mirror' });
  const quiet = { debug() {}, info() {}, warn() {}, error() {} };
  const plugin = upstreamPlugin(
    'everything',
    { command: everythingBin, args: ['stdio'] },
    { logger: quiet },
  );
  const pids = new Set<number>();
  t.after(async () => {
    const pid = plugin.connection?.pid;
    if (pid) for (const p of [pid, ...descendants(pid)]) pids.add(p);
    await plugin.dispose();
    await server.close();
    killAll(await waitUntilGone([...pids], 5_000));
  });
  security.install(server);
  const loaded = await server.registry.loadPlugin('everything', { module: plugin });
  assert.equal(loaded.error, undefined);
  security.setPreCallValidator((tool, params) =>
    tool === 'echo' && String(params.message).includes('rm -rf') ? 'dangerous input' : null,
  );
  const client = await inMemoryClient(server);
  t.after(() => client.close());

  assert.equal(
    firstText(await client.callTool({ name: 'echo', arguments: { message: 'hi' } })),
    'Echo: hi',
  );
  const refused = await client.callTool({ name: 'echo', arguments: { message: 'rm -rf /' } });
  assert.equal(refused.isError, true);
  assert.equal(firstText(refused), 'Rejected: dangerous input');
  const log = await readLog(toolLogger);
  assert.deepEqual(
    log.map((e) => [e.tool, e.plugin, e.outcome]),
    [
      ['echo', 'everything', 'ok'],
      ['echo', 'everything', 'rejected'],
    ],
  );
  assert.match(
    await security.metrics!.text(),
    /^mcpbox_tool_calls_total\{tool="echo",plugin="everything",outcome="rejected"\} 1$/m,
  );
});

describe('OAuth and the gated plugin over real HTTP', () => {
  async function start(t: After) {
    const as = await startIntrospectionServer();
    t.after(() => as.close());
    as.tokens.set('alice-token', {
      active: true,
      client_id: 'alice',
      sub: 'alice@example.com',
      scope: 'user',
      exp: Math.floor(Date.now() / 1000) + 3600,
    });
    as.tokens.set('bob-token', {
      active: true,
      client_id: 'bob',
      scope: 'user',
      exp: Math.floor(Date.now() / 1000) + 3600,
    });
    const secret = newSecret();
    process.env.MCPBOX_TEST_GATED_SECRET = secret;
    t.after(() => {
      delete process.env.MCPBOX_TEST_GATED_SECRET;
    });
    const toolLogger = await tempToolLogger(t);
    const security = createSecurity(
      {
        ...noAuth,
        transport: 'http',
        oauth_server_url: as.url,
        oauth_public_url: 'http://127.0.0.1/mcp',
        oauth_required_scopes: ['user'],
      },
      { toolLogger },
    );
    t.after(() => security.close());
    const server: McpboxServer = createServer({
      name: 'secured',
      pluginDirs: [REPO_PLUGINS],
      transport: 'http',
      port: 0,
      ...security.httpOptions,
    });
    t.after(() => server.close());
    security.install(server);
    const loaded = await server.registry.loadPlugin('gated', {
      config: { gate: { groups: { secrets: { secret_ref: 'MCPBOX_TEST_GATED_SECRET' } } } },
    });
    assert.ok(loaded.ok, loaded.error);
    const url = new URL((await server.start())!);
    const health = await startHealthServer({
      port: 0,
      stats: server.stats,
      routes: { '/metrics': security.metrics!.handler },
    });
    t.after(() => health.close());
    const connect = async (token?: string) => {
      const client = new Client({ name: 'test', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(url, {
        requestInit: token ? { headers: { authorization: `Bearer ${token}` } } : undefined,
      });
      await client.connect(transport);
      t.after(() => client.close());
      return client;
    };
    return { as, url, secret, connect, health, security, toolLogger };
  }

  test('no token or a bad token cannot connect; a valid token can', async (t) => {
    const { connect, url, as } = await start(t);
    // The SDK client surfaces the 401 as an SdkHttpError (status 401) with the OAuth error body.
    await assert.rejects(connect(), { status: 401, message: /Missing Authorization header/ });
    await assert.rejects(connect('stolen-token'), { status: 401, message: /Token is not active/ });
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(res.status, 401);
    assert.match(
      res.headers.get('www-authenticate') ?? '',
      /resource_metadata="http:\/\/127\.0\.0\.1\/\.well-known\/oauth-protected-resource\/mcp"/,
    );
    const metadata = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', url));
    assert.deepEqual(await metadata.json(), {
      resource: 'http://127.0.0.1/mcp',
      authorization_servers: [as.url],
      bearer_methods_supported: ['header'],
      scopes_supported: ['user'],
    });
    const alice = await connect('alice-token');
    assert.equal(
      firstText(await alice.callTool({ name: 'gate_status', arguments: {} })),
      '✗ secrets: LOCKED',
    );
  });

  test('two HTTP sessions: an unlock in one leaves the other locked; /metrics counts it all', async (t) => {
    const { connect, secret, health, toolLogger } = await start(t);
    const alice = await connect('alice-token');
    const bob = await connect('bob-token');
    const locked = await alice.callTool({
      name: 'gated_secret_action',
      arguments: { what: 'deploy' },
    });
    assert.equal(locked.isError, true);
    assert.match(firstText(locked), /^Group 'secrets' is locked\./);
    const code = codeAt(secret, Date.now());
    const unlock = await alice.callTool({
      name: 'gate_unlock',
      arguments: { group: 'secrets', code },
    });
    assert.equal(unlock.isError, undefined, firstText(unlock));
    assert.equal(
      firstText(
        await alice.callTool({ name: 'gated_secret_action', arguments: { what: 'deploy' } }),
      ),
      'Done: deploy',
    );
    const bobs = await bob.callTool({ name: 'gated_secret_action', arguments: { what: 'deploy' } });
    assert.equal(bobs.isError, true);

    const metrics = await (await fetch(`${health.url}/metrics`)).text();
    assert.match(metrics, /^mcpbox_sessions_open 2$/m);
    assert.match(
      metrics,
      /^mcpbox_tool_calls_total\{tool="gated_secret_action",plugin="gated",outcome="ok"\} 1$/m,
    );
    assert.match(
      metrics,
      /^mcpbox_tool_calls_total\{tool="gated_secret_action",plugin="gated",outcome="error"\} 2$/m,
    );
    assert.match(metrics, /^mcpbox_gate_blocked_calls_total\{group="secrets"\} 2$/m);
    assert.match(metrics, /^mcpbox_gate_unlocks_total\{group="secrets"\} 1$/m);
    assert.ok(!metrics.includes(code), 'the TOTP code is in no metric');

    // Each entry names the caller: the MCP session (its first 8 characters, as the console
    // shows it) and the principal's id (the OAuth subject, else the client id, tagged).
    const log = await readLog(toolLogger);
    const aliceSession = alice.transport?.sessionId?.slice(0, 8);
    const bobSession = bob.transport?.sessionId?.slice(0, 8);
    assert.ok(aliceSession && bobSession && aliceSession !== bobSession);
    assert.deepEqual(
      log.map((e) => [e.tool, e.session, e.principal]),
      [
        ['gated_secret_action', aliceSession, 'sub:alice@example.com'],
        ['gate_unlock', aliceSession, 'sub:alice@example.com'],
        ['gated_secret_action', aliceSession, 'sub:alice@example.com'],
        ['gated_secret_action', bobSession, 'client:bob'],
      ],
    );
    assert.deepEqual(log[1].params, { group: 'secrets', code: '[REDACTED]' });
    const logText = await readFile(toolLogger.path, 'utf8');
    assert.ok(!logText.includes(code), 'the TOTP code is in no log entry');
    assert.ok(!logText.includes('alice-token') && !logText.includes('bob-token'), 'nor a token');
  });
});

test('a bad gate or OAuth setting fails at start naming the file and the key', () => {
  assert.throws(
    () =>
      createSecurity({
        ...noAuth,
        config_file: '/srv/mcp.yaml',
        gate: { groups: { ops: { timeout: -5 } } },
      }),
    (e: unknown) =>
      e instanceof ConfigError &&
      e.message ===
        'invalid configuration: /srv/mcp.yaml: gate.groups.ops.timeout: expected a number of seconds greater than 0',
  );
  assert.throws(
    () =>
      createSecurity({
        ...noAuth,
        transport: 'http',
        config_file: '/srv/mcp.yaml',
        oauth_server_url: 'http://auth.internal',
        oauth_public_url: 'https://mcp.example.com',
      }),
    /^ConfigError: invalid configuration: \/srv\/mcp\.yaml: oauth_server_url: must use https:\/\//,
  );
});

test('the README flow: a YAML config drives OAuth, the gate, the JSONL log and /metrics', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'security-'));
  // Its log lives in the folder: closed (flushed) first, or the flush would make it again.
  let security: ReturnType<typeof createSecurity> | undefined;
  t.after(async () => {
    await security?.close();
    await rm(dir, { recursive: true, force: true });
  });
  const as = await startIntrospectionServer();
  t.after(() => as.close());
  as.tokens.set('tok', {
    active: true,
    client_id: 'c',
    scope: 'user',
    exp: Math.floor(Date.now() / 1000) + 600,
  });
  const file = join(dir, 'mcpbox.yaml');
  await writeFile(
    file,
    [
      'transport: http',
      'port: 0',
      `oauth_server_url: ${as.url}`,
      'oauth_public_url: http://127.0.0.1/mcp',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: YAML interpolation, not a JS template
      'oauth_cache_ttl: "${CACHE_TTL:-60}"',
      'tool_log_dir: logs',
      'metrics: true',
      'gate:',
      '  groups:',
      '    loud: { secret_ref: NOT_SET_ANYWHERE, tools: [echo_upper] }',
      '',
    ].join('\n'),
  );
  const config = loadConfig({ file, env: {} });
  const toolLogger = new JsonlToolLogger({ dir: config.tool_log_dir });
  security = createSecurity(config, { toolLogger });
  const server = createServer(config, { ...security.httpOptions, pluginDirs: [REPO_PLUGINS] });
  t.after(() => server.close());
  security.install(server);
  assert.ok((await server.registry.loadPlugin('echo')).ok);
  const url = new URL((await server.start())!);
  const health = await startHealthServer({ port: 0, stats: server.stats });
  t.after(() => health.close());
  if (security.metrics) health.addRoute('/metrics', security.metrics.handler);

  assert.equal((await fetch(url, { method: 'POST', body: '{}' })).status, 401);
  // The legacy SSE pair is behind the same check.
  assert.equal((await fetch(new URL('/sse', url))).status, 401);
  assert.equal(
    (await fetch(new URL('/messages?sessionId=x', url), { method: 'POST', body: '{}' })).status,
    401,
  );
  const client = new Client({ name: 'readme', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { authorization: 'Bearer tok' } },
    }),
  );
  t.after(() => client.close());
  assert.equal(
    firstText(await client.callTool({ name: 'echo', arguments: { message: 'hi' } })),
    'hi',
  );
  const gated = await client.callTool({ name: 'echo_upper', arguments: { message: 'hi' } });
  assert.match(firstText(gated), /^Group 'loud' is locked/);
  const unlock = await client.callTool({
    name: 'gate_unlock',
    arguments: { group: 'loud', code: '123456' },
  });
  assert.equal(
    firstText(unlock),
    "Cannot unlock group 'loud': Environment variable 'NOT_SET_ANYWHERE' is not set.",
  );

  await toolLogger.flush();
  const log = (await readFile(join(dir, 'logs', 'tool_calls.jsonl'), 'utf8')).trim().split('\n');
  assert.deepEqual(
    log.map((l) => JSON.parse(l).outcome),
    ['ok', 'rejected', 'error'],
  );
  const metrics = await (await fetch(`${health.url}/metrics`)).text();
  assert.match(metrics, /^mcpbox_oauth_rejections_total\{reason="missing_token"\} 3$/m);
  assert.match(metrics, /^mcpbox_tool_calls_total\{tool="echo",plugin="echo",outcome="ok"\} 1$/m);
});
