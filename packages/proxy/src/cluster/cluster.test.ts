/**
 * Cluster mode end to end: a real `redis-server` and real `mcp-proxy` replicas on loopback. A
 * load on one replica reaches 2026 `subscriptions/listen` clients and 2025 sessions of another;
 * a late replica adopts the set; a plugin failing on one replica is reported; Redis lost and
 * back; Redis down at start; a policy reload on one replica reloads every replica's own file.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  codeAt,
  freePort,
  newSecret,
  type ProxyProcess,
  rawModern,
  runProxyCli,
  startProxy,
  startRedisServer,
  TEST_CLUSTER_SECRET,
  waitFor,
} from '@mcpbox/test-utils';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { testdir, versionPlugin } from '../proxy/__fixtures__/testdir.ts';

type After = { after(fn: () => unknown): void };

async function replica(
  t: After,
  redisUrl: string,
  options: {
    home: string;
    pluginDir?: string;
    autoload?: string[];
    env?: Record<string, string>;
    /** `-c`: the replica's own config file. */
    config?: string;
  },
): Promise<ProxyProcess> {
  const args = ['--http', '0', '--mgmt-port', '0'];
  if (options.config) args.push('-c', options.config);
  if (options.pluginDir) args.push('-d', options.pluginDir);
  for (const name of options.autoload ?? ['echo']) args.push('-a', name);
  const proxy = await startProxy(args, {
    env: {
      HOME: options.home,
      MCP_REDIS_URL: redisUrl,
      MCP_CLUSTER_SECRET: TEST_CLUSTER_SECRET,
      ...options.env,
    },
    timeoutMs: 60_000,
  });
  t.after(() => proxy.stop());
  return proxy;
}

async function rest(proxy: ProxyProcess, method: string, path: string, body?: unknown) {
  const response = await fetch(`http://127.0.0.1:${proxy.mgmtPort}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function ready(proxy: ProxyProcess) {
  const response = await fetch(`${proxy.healthUrl}/health/ready`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** A client of one era that records every tools list it is told about. */
async function listener(t: After, url: string, era: 'legacy' | 'modern') {
  const lists: string[][] = [];
  const client = new Client(
    { name: `cluster-${era}`, version: '1.0.0' },
    {
      versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: '2026-07-28' } },
      listChanged: {
        tools: {
          debounceMs: 0,
          onChanged: (_error, tools) => {
            lists.push((tools ?? []).map((tool) => tool.name));
          },
        },
      },
    },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  t.after(() => client.close());
  await client.listTools();
  return {
    client,
    lists,
    /** Whether the newest list it was told about satisfies `check`. */
    latest: (check: (tools: string[]) => boolean) =>
      lists.length > 0 && check(lists[lists.length - 1]!),
  };
}

async function callEcho(client: Client) {
  const result = await client.callTool({ name: 'echo', arguments: { message: 'hi' } });
  return JSON.stringify(result.content);
}

test('three replicas share the plugin set: a load on A reaches both eras on C; a late replica adopts it', async (t) => {
  const redis = await startRedisServer(t);
  const home = testdir({}, t);
  const a = await replica(t, redis.url, { home });
  const b = await replica(t, redis.url, { home });
  const c = await replica(t, redis.url, { home });

  const modern = await listener(t, c.mcpUrl!, 'modern');
  const legacy = await listener(t, c.mcpUrl!, 'legacy');
  // The 2026 client's subscriptions/listen stream opens in the background: reload echo on C
  // until both clients have heard a change, so the stream is known to be up.
  await waitFor(
    async () => {
      await rest(c, 'POST', '/proxy/reload', { plugin: 'echo' });
      return modern.lists.length > 0 && legacy.lists.length > 0;
    },
    'the listen stream on C',
    60_000,
  );

  const loaded = await rest(a, 'POST', '/proxy/load', { plugin: 'greet' });
  assert.equal(loaded.status, 200, JSON.stringify(loaded.body));
  await waitFor(
    () => modern.latest((tools) => tools.includes('greet')),
    'the 2026 client on C to list greet',
  );
  await waitFor(
    () => legacy.latest((tools) => tools.includes('greet')),
    'the 2025 session on C to list greet',
  );
  const greeting = await modern.client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
  assert.match(JSON.stringify(greeting.content), /Ada/);

  // Every replica reports the same set; the status says so.
  await waitFor(async () => {
    const status = await rest(b, 'GET', '/proxy/status');
    const cluster = status.body.cluster as { diverged: boolean; replicas: unknown[] };
    return cluster.replicas.length === 3 && !cluster.diverged;
  }, 'three replicas in line');
  const status = await rest(b, 'GET', '/proxy/status');
  const cluster = status.body.cluster as { shared: string[]; redis: string };
  assert.deepEqual(cluster.shared, ['echo', 'greet']);
  assert.equal(cluster.redis, 'connected');
  assert.ok(Object.keys(status.body.plugins as object).includes('greet'));

  // An unload on B reaches C too.
  assert.equal((await rest(b, 'POST', '/proxy/unload', { plugin: 'greet' })).status, 200);
  await waitFor(
    () => modern.latest((tools) => !tools.includes('greet')),
    'the 2026 client on C to lose greet',
  );
  await rest(a, 'POST', '/proxy/load', { plugin: 'greet' });

  // A replica that starts now, with only echo configured, adopts greet.
  const d = await replica(t, redis.url, { home });
  await waitFor(async () => {
    const plugins = await rest(d, 'GET', '/proxy/plugins');
    return (plugins.body.plugins as string[]).includes('greet');
  }, 'the late replica to load greet');
  const late = await listener(t, d.mcpUrl!, 'modern');
  const tools = await late.client.listTools();
  assert.ok(tools.tools.some((tool) => tool.name === 'greet'));
});

test('two replicas loading one plugin at once converge; a plugin failing on one replica is reported', async (t) => {
  const redis = await startRedisServer(t);
  const good = testdir({ 'plugins/flaky.ts': versionPlugin('v1') }, t);
  const bad = testdir(
    {
      'plugins/flaky.ts':
        "export function register() { throw new Error('flaky needs a licence file on this host'); }",
    },
    t,
  );
  const a = await replica(t, redis.url, { home: good, pluginDir: join(good, 'plugins') });
  const b = await replica(t, redis.url, { home: good, pluginDir: join(good, 'plugins') });
  const c = await replica(t, redis.url, { home: bad, pluginDir: join(bad, 'plugins') });

  const [first, second] = await Promise.all([
    rest(a, 'POST', '/proxy/load', { plugin: 'greet' }),
    rest(b, 'POST', '/proxy/load', { plugin: 'greet' }),
  ]);
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.equal(second.status, 200, JSON.stringify(second.body));

  assert.equal((await rest(a, 'POST', '/proxy/load', { plugin: 'flaky' })).status, 200);
  type View = {
    diverged: boolean;
    shared: string[];
    replicas: { replica: string; missing: string[]; errors: Record<string, string> }[];
  };
  let view: View | undefined;
  await waitFor(async () => {
    view = (await rest(a, 'GET', '/proxy/status')).body.cluster as View;
    return view.replicas.length === 3 && view.replicas.some((r) => r.errors.flaky);
  }, 'the failing replica to report its error');
  assert.ok(view);
  assert.equal(view.diverged, true);
  assert.deepEqual(view.shared, ['echo', 'flaky', 'greet']);
  const failing = view.replicas.filter((r) => r.errors.flaky);
  assert.equal(failing.length, 1);
  assert.match(failing[0]!.errors.flaky!, /licence file/);
  assert.deepEqual(failing[0]!.missing, ['flaky']);
  // greet converged everywhere, loaded once per replica.
  for (const r of view.replicas) assert.ok(!r.missing.includes('greet'), JSON.stringify(r));

  // The MCP tool says it too, on any replica.
  const client = new Client({ name: 'status', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(b.mcpUrl!)));
  t.after(() => client.close());
  const text = JSON.stringify(
    (await client.callTool({ name: 'proxy__status', arguments: {} })).content,
  );
  assert.match(text, /DIVERGED/);
  assert.match(text, /flaky failed: .*licence file/);
  assert.match(c.stderr(), /the shared plugin set has 'flaky' but its load failed on this replica/);
});

test('Redis lost mid-run: not ready, calls still served, converged when it is back', async (t) => {
  const redis = await startRedisServer(t);
  const home = testdir({}, t);
  const a = await replica(t, redis.url, { home });
  const c = await replica(t, redis.url, { home });
  const client = await listener(t, c.mcpUrl!, 'legacy');
  assert.equal((await ready(a)).status, 200);

  await redis.stop();
  await waitFor(async () => (await ready(a)).status === 503, 'A to say it is not ready');
  const notReady = await ready(c);
  assert.equal(notReady.status, 503);
  assert.match(String(notReady.body.error), /Redis at redis:\/\/127\.0\.0\.1:\d+\/? unreachable/);
  assert.match(await callEcho(client.client), /hi/);
  await waitFor(() => /lost Redis at/.test(a.stderr()), 'the loss in the log');
  // A change made while Redis is away holds here and waits to be shared.
  assert.equal((await rest(a, 'POST', '/proxy/load', { plugin: 'greet' })).status, 200);
  await waitFor(
    () => /load(ed)? of 'greet' applied on this replica only/.test(a.stderr()),
    'the unshared change in the log',
  );

  await redis.start();
  await waitFor(
    async () => (await ready(a)).status === 200 && (await ready(c)).status === 200,
    'both replicas ready again',
    60_000,
  );
  assert.equal(a.stderr().match(/lost Redis at/g)?.length, 1, 'the loss is logged once');
  assert.match(a.stderr(), /is back; re-reading shared state/);
  // Redis came back empty: the set was seeded again from the replicas, the change A made
  // meanwhile reached C, and changes flow again.
  await waitFor(
    () => client.latest((tools) => tools.includes('greet')),
    'the load A made while Redis was away to reach C',
  );
  assert.equal((await rest(a, 'POST', '/proxy/unload', { plugin: 'greet' })).status, 200);
  await waitFor(
    () => client.latest((tools) => !tools.includes('greet')),
    'the unload on A to reach C after the return',
  );
  assert.match(await callEcho(client.client), /hi/);
});

test('Redis down at start: a clear error, or a single process with fallback: local', async (t) => {
  const home = testdir({}, t);
  const url = `redis://127.0.0.1:${await freePort()}`;
  const run = await runProxyCli(['--http', '0', '--mgmt-port', '0', '-a', 'echo'], {
    env: { HOME: home, MCP_REDIS_URL: url, MCP_CLUSTER_SECRET: TEST_CLUSTER_SECRET },
  });
  assert.notEqual(run.code, 0);
  assert.match(run.stderr, new RegExp(`cannot reach the cluster's Redis at ${url}`));
  assert.match(run.stderr, /fallback: local/);
  assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');

  const config = join(
    testdir({ 'proxy.yaml': `cluster:\n  redis_url: ${url}\n  fallback: local\n` }, t),
    'proxy.yaml',
  );
  const alone = await startProxy(['--http', '0', '--mgmt-port', '0', '-a', 'echo', '-c', config], {
    env: { HOME: home, MCP_CLUSTER_SECRET: TEST_CLUSTER_SECRET },
  });
  t.after(() => alone.stop());
  assert.match(alone.stderr(), /serving as a single process/);
  assert.equal((await ready(alone)).status, 200);
});

const INTERVIEW = `
export function register(server) {
  server.registerTool('interview', { description: 'asks a name' }, async (ctx) => {
    const answer = await ctx.elicit({
      mode: 'form',
      message: 'Your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
    });
    return answer.action === 'accept' ? 'Hello, ' + answer.content.name : 'declined';
  });
}
`;

test('security state is shared: a gate unlock through A holds through B, a lock through C voids it; an input round sealed by A continues on B', async (t) => {
  const redis = await startRedisServer(t);
  const secret = newSecret();
  const home = testdir({ 'plugins/interview.js': INTERVIEW }, t);
  const options = {
    home,
    pluginDir: join(home, 'plugins'),
    autoload: ['echo', 'gated', 'interview'],
    env: { MCP_GATE_SECRET_SECRETS: secret },
  };
  const [a, b, c] = await Promise.all([
    replica(t, redis.url, options),
    replica(t, redis.url, options),
    replica(t, redis.url, options),
  ]);
  const call = async (proxy: ProxyProcess, name: string, args: Record<string, unknown>) => {
    const response = await rawModern(proxy.mcpUrl!, 'tools/call', { name, arguments: args });
    assert.ok(response.result, JSON.stringify(response));
    return JSON.stringify(response.result.content);
  };

  // A 2026 request without authentication gets a handle; it works on every replica.
  const code = codeAt(secret, Date.now());
  const unlocked = await call(a, 'gate_unlock', { group: 'secrets', code });
  const handle = /gate_handle='([^'\\]+)'/.exec(unlocked)?.[1];
  assert.ok(handle, unlocked);
  assert.match(await call(b, 'gated_secret_action', { what: 'x', gate_handle: handle }), /Done: x/);
  assert.match(await call(c, 'gated_secret_action', { what: 'y' }), /is locked/);
  // The same code is spent on every replica.
  assert.match(await call(b, 'gate_unlock', { group: 'secrets', code }), /already used/);

  // A lock through C voids the handle on B.
  assert.match(await call(c, 'gate_lock', { group: 'secrets' }), /locked/);
  assert.match(
    await call(b, 'gated_secret_action', { what: 'x', gate_handle: handle }),
    /is locked/,
  );

  // requestState sealed by A opens on B.
  const capabilities = { elicitation: { form: {} } };
  const first = await rawModern(
    a.mcpUrl!,
    'tools/call',
    { name: 'interview', arguments: {} },
    {
      capabilities,
    },
  );
  assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
  const asked = Object.keys(first.result?.inputRequests as object)[0]!;
  const next = await rawModern(
    b.mcpUrl!,
    'tools/call',
    {
      name: 'interview',
      arguments: {},
      inputResponses: { [asked]: { action: 'accept', content: { name: 'Ada' } } },
      requestState: first.result?.requestState,
    },
    { capabilities },
  );
  assert.match(JSON.stringify(next), /Hello, Ada/);
});

test('reload_policy on one replica reloads every replica from its own file', async (t) => {
  const redis = await startRedisServer(t);
  const home = testdir({}, t);
  const { writeFileSync } = await import('node:fs');
  const policy = (file: string, tools: string) =>
    writeFileSync(
      file,
      `policy:\n  rules:\n    - name: loopback\n      tools: ${tools}\n      allow: 'principal.kind == "anonymous"'\n`,
    );
  const files = [join(home, 'a.yaml'), join(home, 'b.yaml')];
  for (const file of files) policy(file, '[echo]');
  const a = await replica(t, redis.url, { home, config: files[0] });
  const b = await replica(t, redis.url, { home, config: files[1] });
  const client = new Client({ name: 'cluster-policy', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(b.mcpUrl!)));
  t.after(() => client.close());
  const onB = async () => (await client.listTools()).tools.map((tool) => tool.name).sort();
  assert.deepEqual(await onB(), ['echo']);

  // The deployment's files change; one reload, asked of A, reaches B.
  for (const file of files) policy(file, '["echo*"]');
  const reloaded = await rest(a, 'POST', '/proxy/policy/reload');
  assert.equal(reloaded.status, 200, JSON.stringify(reloaded.body));
  await waitFor(async () => (await onB()).includes('echo_upper'), 'B to reload its policy');
  assert.match(b.stderr(), /another replica reloaded the policy; reloaded .*b\.yaml here/);

  // B's file goes bad: A's reload still applies on A; B keeps its policy and says why.
  policy(files[0], '[echo]');
  writeFileSync(files[1], "policy:\n  rules:\n    - name: broken\n      allow: '1 +'\n");
  assert.equal((await rest(a, 'POST', '/proxy/policy/reload')).status, 200);
  await waitFor(
    () => /the reload failed here \(the old policy stays\): .*rule "broken"/.test(b.stderr()),
    'B to report its failed reload',
  );
  assert.deepEqual(await onB(), ['echo', 'echo_upper']);
});
