/**
 * Principals and API keys, end to end: keys made by the real `mcp-proxy api-key new`, the real
 * mcp-factory bin over HTTP with `api_keys`, views and a policy, real SDK clients of both eras,
 * a real OTLP receiver and a real introspection server.
 *
 * A key is the principal `key:<name>`: its groups decide what policy lists and allows, a wrong
 * or missing key is 401, a denied call names the rule. The tool-call log, and the tool-call span,
 * name the principal; no log holds a key. With OAuth too, a key never reaches introspection and
 * a token goes there as before. What a client writes about itself (`_meta`, headers, arguments)
 * changes nothing.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ERAS, type Era, versionOfEra } from '@mcpbox/framework';
import {
  FACTORY_BIN,
  firstText,
  type ReceivedSpan,
  runProxyCli,
  runServerBin,
  startIntrospectionServer,
  startOtlpReceiver,
  waitFor,
} from '@mcpbox/test-utils';
import {
  Client,
  InsufficientScopeError,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { testdir } from '../../proxy/__fixtures__/testdir.ts';

type After = { after(fn: () => unknown): void };

/** A key made by `mcp-proxy api-key new`, and the config lines it printed. */
async function makeKey(name: string, group: string) {
  const made = await runProxyCli(['api-key', 'new', name, '--group', group]);
  assert.equal(made.code, 0, made.stderr);
  const key = /^ {2}(mcpbox_\S+)$/m.exec(made.stdout)?.[1];
  const entry = /^ {2}- name: [\s\S]*?(?=\n\n)/m.exec(made.stdout)?.[0];
  assert.ok(key && entry, made.stdout);
  const sha256 = createHash('sha256').update(key).digest('hex');
  assert.match(entry, new RegExp(`sha256: ${sha256}\\n {4}groups: \\[${group}\\]`));
  return { key, entry };
}

const POLICY = [
  'views:',
  '  ops:',
  '    plugins: [echo]',
  'policy:',
  '  rules:',
  '    - name: ci-may-call',
  '      allow: \'"ci" in principal.groups\'',
  '    - name: interns-may-echo',
  '      tools: [echo]',
  '      allow: \'"interns" in principal.groups\'',
  '    - name: no-shouting',
  '      tools: [echo_upper]',
  '      deny: \'!("ci" in principal.groups)\'',
];

/** mcp-factory -p echo over HTTP with `config` (YAML lines); its URL, home and stderr. */
async function factory(t: After, config: string[], env: Record<string, string> = {}) {
  const home = testdir({ 'factory.yaml': [...config, 'tool_log_dir: ./calls', ''].join('\n') }, t);
  const proc = await runServerBin(
    t,
    FACTORY_BIN,
    ['-c', join(home, 'factory.yaml'), '-p', 'echo', '--http', '0', '--log-level', 'debug'],
    /MCP endpoint:\s+(\S+)/,
    { env: { HOME: home, ...env } },
  );
  assert.ok(proc.match, proc.stderr());
  return { url: proc.match[1] as string, home, stderr: proc.stderr };
}

async function connect(
  t: After,
  url: string,
  era: Era,
  { token, headers }: { token?: string; headers?: Record<string, string> } = {},
) {
  const client = new Client(
    { name: `keys-${era}`, version: '1.0.0' },
    { versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: versionOfEra(era) } } },
  );
  const all = { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) };
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: all } }),
  );
  t.after(() => client.close());
  return client;
}

const names = async (client: Client) =>
  (await client.listTools()).tools.map((tool) => tool.name).sort();

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await client.callTool({ name, arguments: { message: 'hi', ...args } });
  return result.isError ? `error: ${firstText(result)}` : firstText(result);
}

/** The tool-call log's entries, once `count` are written. */
async function logEntries(home: string, count: number) {
  const file = join(home, 'calls', 'tool_calls.jsonl');
  const read = () =>
    existsSync(file)
      ? readFileSync(file, 'utf8')
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as { tool: string; outcome: string; principal?: string })
      : [];
  await waitFor(() => read().length >= count, `${count} calls logged`);
  return { entries: read(), text: readFileSync(file, 'utf8') };
}

test('API keys: the key’s groups decide, a wrong key is 401, a denial names the rule; logs and spans name key:<name>, never the key', async (t) => {
  const ci = await makeKey('ci-bot', 'ci');
  const intern = await makeKey('intern', 'interns');
  const receiver = await startOtlpReceiver(t);
  const { url, home, stderr } = await factory(t, ['api_keys:', ci.entry, intern.entry, ...POLICY], {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_BSP_SCHEDULE_DELAY: '100',
  });
  assert.match(stderr(), /API keys: 2 service accounts \(key:ci-bot, key:intern\)/);

  for (const era of ERAS) {
    await assert.rejects(connect(t, url, era), { status: 401 }, `${era}: no key`);
    await assert.rejects(
      connect(t, url, era, { token: `${ci.key}x` }),
      { status: 401 },
      `${era}: a wrong key`,
    );
    const bot = await connect(t, url, era, { token: ci.key });
    assert.deepEqual(await names(bot), ['echo', 'echo_upper']);
    assert.equal(await call(bot, 'echo_upper', { message: era }), era.toUpperCase());
    assert.equal(await call(bot, 'echo', { message: 'again' }), 'again');

    const weak = await connect(t, url, era, { token: intern.key });
    assert.deepEqual(await names(weak), ['echo']);
    assert.equal(await call(weak, 'echo'), 'hi');
    assert.equal(
      await call(weak, 'echo_upper'),
      'error: Tool echo_upper is not allowed for key:intern: denied by policy rule "no-shouting"',
    );
  }
  const missing = await fetch(url, { method: 'POST', headers: { authorization: 'Bearer nope' } });
  assert.equal(missing.status, 401);
  assert.match(missing.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
  assert.deepEqual(await missing.json(), {
    error: 'invalid_token',
    error_description: 'Invalid API key',
  });

  const { entries, text } = await logEntries(home, 8);
  assert.deepEqual(
    entries.map((e) => [e.tool, e.outcome, e.principal]),
    ERAS.flatMap(() => [
      ['echo_upper', 'ok', 'key:ci-bot'],
      ['echo', 'ok', 'key:ci-bot'],
      ['echo', 'ok', 'key:intern'],
      ['echo_upper', 'rejected', 'key:intern'],
    ]),
  );
  for (const secret of [ci.key, intern.key]) {
    assert.ok(!text.includes(secret), 'no key in the tool-call log');
    assert.ok(!stderr().includes(secret), 'no key in the server’s log');
  }

  const spans = await receiver.waitFor(
    (all) => all.filter((s) => s.name.startsWith('execute_tool')).length >= 8,
  );
  assert.deepEqual(
    spans
      .filter((s) => s.name.startsWith('execute_tool'))
      .map(spanPrincipal)
      .sort(),
    ERAS.flatMap(() => [
      ['execute_tool echo_upper', 'key:ci-bot', 'api_key', undefined],
      ['execute_tool echo', 'key:ci-bot', 'api_key', undefined],
      ['execute_tool echo', 'key:intern', 'api_key', undefined],
      ['execute_tool echo_upper', 'key:intern', 'api_key', undefined],
    ]).sort(),
  );
});

/** Who a tool-call span says called, and through which view. */
const spanPrincipal = (span: ReceivedSpan) => [
  span.name,
  span.attributes['enduser.id'],
  span.attributes['mcp.principal.kind'],
  span.attributes['mcpbox.view'],
];

test('stdio with a view: the span names the local user and the view; the log names the local user', async (t) => {
  const receiver = await startOtlpReceiver(t);
  const home = testdir(
    {
      'factory.yaml': [...POLICY.slice(0, 3), 'view: ops', 'tool_log_dir: ./calls', ''].join('\n'),
    },
    t,
  );
  for (const era of ERAS) {
    const client = new Client(
      { name: `keys-${era}`, version: '1.0.0' },
      { versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: versionOfEra(era) } } },
    );
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [FACTORY_BIN, '-c', join(home, 'factory.yaml'), '-p', 'echo'],
        env: {
          ...(process.env as Record<string, string>),
          HOME: home,
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
          OTEL_BSP_SCHEDULE_DELAY: '100',
        },
        stderr: 'ignore',
      }),
    );
    t.after(() => client.close());
    assert.equal(await call(client, 'echo', { message: era }), era);
  }
  const user = `local:${userInfo().username}`;
  const spans = await receiver.waitFor(
    (all) => all.filter((s) => s.name === 'execute_tool echo').length >= 2,
  );
  assert.deepEqual(
    spans.filter((s) => s.name === 'execute_tool echo').map(spanPrincipal),
    ERAS.map(() => ['execute_tool echo', user, 'local', 'ops']),
  );
  const { entries } = await logEntries(home, 2);
  assert.deepEqual(
    entries.map((e) => e.principal),
    ERAS.map(() => user),
  );
});

test('API keys with OAuth: a key never reaches introspection, a token does; required scopes apply to both', async (t) => {
  const ci = await makeKey('ci-bot', 'ci');
  const scoped = await runProxyCli(['api-key', 'new', 'deployer', '-g', 'ci', '-s', 'tools']);
  const deployer = /^ {2}(mcpbox_\S+)$/m.exec(scoped.stdout)?.[1] as string;
  const deployerEntry = /^ {2}- name: [\s\S]*?(?=\n\n)/m.exec(scoped.stdout)?.[0] as string;
  const as = await startIntrospectionServer();
  t.after(() => as.close());
  const exp = Math.floor(Date.now() / 1000) + 3600;
  as.tokens.set('alice-token', { active: true, sub: 'alice', scope: 'tools', groups: ['ci'], exp });
  as.tokens.set('bob-token', { active: true, sub: 'bob', scope: 'other', groups: ['ci'], exp });
  const { url, home, stderr } = await factory(t, [
    `oauth_server_url: ${as.url}`,
    'oauth_public_url: http://127.0.0.1/mcp',
    'oauth_required_scopes: [tools]',
    'api_keys:',
    ci.entry,
    deployerEntry,
    ...POLICY,
  ]);
  assert.match(stderr(), /API keys: 2 service accounts .*; other tokens go to OAuth/);

  for (const era of ERAS) {
    const key = await connect(t, url, era, { token: deployer });
    assert.equal(await call(key, 'echo_upper', { message: 'key' }), 'KEY');
    const alice = await connect(t, url, era, { token: 'alice-token' });
    assert.equal(await call(alice, 'echo_upper', { message: 'token' }), 'TOKEN');
    const lacksScope = (error: unknown) =>
      error instanceof InsufficientScopeError && error.requiredScope === 'tools';
    await assert.rejects(connect(t, url, era, { token: ci.key }), lacksScope, 'a key');
    await assert.rejects(connect(t, url, era, { token: 'bob-token' }), lacksScope, 'a token');
    await assert.rejects(connect(t, url, era, { token: 'stolen' }), { status: 401 });
  }
  const introspected = as.requests.map((form) => form.get('token'));
  assert.ok(introspected.includes('alice-token'));
  assert.ok(!introspected.some((token) => token === deployer || token === ci.key));

  const { entries, text } = await logEntries(home, 4);
  assert.deepEqual(
    entries.map((e) => e.principal),
    ['key:deployer', 'sub:alice', 'key:deployer', 'sub:alice'],
  );
  assert.ok(!text.includes(deployer) && !stderr().includes(deployer), 'no key in any log');
});

test('api-key new refuses a name no principal can have, saying what a name may hold', async () => {
  const made = await runProxyCli(['api-key', 'new', 'ci bot']);
  assert.equal(made.code, 1);
  assert.equal(made.stdout, '');
  assert.equal(
    made.stderr,
    'Error: "ci bot" cannot name an API key: use letters, digits, _ . @ - (starting with a letter or digit, at most 64)\n',
  );
});

/** Everything a client can write about itself, claiming to be `key:ci-bot` of group `ci`. */
const SPOOF = {
  headers: { 'x-principal': 'key:ci-bot', 'x-user': 'ci-bot', 'x-groups': 'ci' },
  meta: { principal: { id: 'key:ci-bot', kind: 'api_key', groups: ['ci'] }, user: 'ci-bot' },
  args: { principal: 'key:ci-bot', groups: ['ci'], user: 'ci-bot' },
};

async function spoofingCall(client: Client) {
  const result = await client.callTool({
    name: 'echo_upper',
    arguments: { message: 'hi', ...SPOOF.args },
    _meta: SPOOF.meta,
  });
  return result.isError ? `error: ${firstText(result)}` : firstText(result);
}

test('spoofing: a principal written in _meta, a header or an argument changes nothing, with a key and without authentication, both eras', async (t) => {
  const intern = await makeKey('intern', 'interns');
  const keyed = await factory(t, ['api_keys:', intern.entry, ...POLICY]);
  const open = await factory(t, [
    'policy:',
    '  rules:',
    '    - name: anyone-may-echo',
    '      tools: [echo]',
    '      allow: "true"',
    '    - name: ci-may-shout',
    '      tools: [echo_upper]',
    '      allow: \'"ci" in principal.groups\'',
  ]);
  for (const era of ERAS) {
    const asIntern = await connect(t, keyed.url, era, {
      token: intern.key,
      headers: SPOOF.headers,
    });
    assert.deepEqual(await names(asIntern), ['echo'], `${era}: the intern's list`);
    assert.equal(
      await spoofingCall(asIntern),
      'error: Tool echo_upper is not allowed for key:intern: denied by policy rule "no-shouting"',
    );
    const anonymous = await connect(t, open.url, era, { headers: SPOOF.headers });
    assert.deepEqual(await names(anonymous), ['echo'], `${era}: the anonymous list`);
    assert.equal(
      await spoofingCall(anonymous),
      'error: Tool echo_upper is not allowed for anonymous: no policy rule allows it (the policy default is deny)',
    );
  }
  const { entries } = await logEntries(keyed.home, 2);
  assert.deepEqual(
    entries.map((e) => [e.tool, e.outcome, e.principal]),
    ERAS.map(() => ['echo_upper', 'rejected', 'key:intern']),
  );
  // An anonymous caller is named in no entry: the log says who only when someone proved it.
  const anonymousLog = await logEntries(open.home, 2);
  assert.deepEqual(
    anonymousLog.entries.map((e) => [e.tool, e.outcome, e.principal]),
    ERAS.map(() => ['echo_upper', 'rejected', undefined]),
  );
});
