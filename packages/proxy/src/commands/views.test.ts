/**
 * Views (virtual servers) as a user meets them: the real mcp-factory and mcp-proxy bins, a config
 * with two views over the demo plugins, SDK clients of both eras.
 *
 * Over HTTP each view is at `/mcp/<name>` (2025 sessions and 2026 requests alike, behind the same
 * OAuth and DNS-rebinding guard as `/mcp`); over stdio `--view <name>` picks one. A path or flag
 * naming no view is answered with the views there are.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { join } from 'node:path';
import { test } from 'node:test';
import { ERAS, type Era, versionOfEra } from '@mcpbox/framework';
import {
  connectStdio,
  FACTORY_BIN,
  PROXY_BIN,
  rawModern,
  runServerBin,
  startIntrospectionServer,
  textOf,
} from '@mcpbox/test-utils';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { testdir } from '../proxy/__fixtures__/testdir.ts';

type After = { after(fn: () => unknown): void };

/** View `a`: echo's tools, `echo` renamed `say` with its only argument fixed; view `b`: greet. */
const VIEWS = [
  'views:',
  '  a:',
  '    plugins: [echo]',
  '    rename: { echo: say }',
  '    descriptions: { echo: "Says what view a says" }',
  '    fixed_arguments: { echo: { message: "from view a" } }',
  '  b:',
  '    tools: ["greet*"]',
];

function home(t: After, extra: string[] = []): string {
  return testdir({ 'views.yaml': [...VIEWS, ...extra, ''].join('\n') }, t);
}

/** mcp-factory serving echo and greet over HTTP with the views; its `/mcp` URL. */
async function factoryHttp(t: After, extra: string[] = []): Promise<string> {
  const dir = home(t, extra);
  const proc = await runServerBin(
    t,
    FACTORY_BIN,
    ['-c', join(dir, 'views.yaml'), '-p', 'echo', 'greet', '--http', '0'],
    /MCP endpoint:\s+(\S+)/,
    { env: { HOME: dir } },
  );
  assert.ok(proc.match, proc.stderr());
  assert.match(proc.stderr(), /serving views at http:\S+\/mcp\/<name>: a, b/);
  return proc.match[1] as string;
}

async function connect(t: After, url: string, era: Era, token?: string): Promise<Client> {
  const client = new Client(
    { name: `views-${era}`, version: '1.0.0' },
    { versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: versionOfEra(era) } } },
  );
  const headers = token ? { authorization: `Bearer ${token}` } : undefined;
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }),
  );
  t.after(() => client.close());
  return client;
}

const names = async (client: Client) =>
  (await client.listTools()).tools.map((tool) => tool.name).sort();

test('HTTP: each view at /mcp/<name> in both eras — its tools only, renamed, fixed arguments hidden and set', async (t) => {
  const url = await factoryHttp(t);
  for (const era of ERAS) {
    const a = await connect(t, `${url}/a`, era);
    const b = await connect(t, `${url}/b`, era);
    const whole = await connect(t, url, era);

    assert.deepEqual(await names(a), ['echo_upper', 'say'], era);
    assert.deepEqual(await names(b), ['greet'], era);
    assert.deepEqual(await names(whole), ['echo', 'echo_upper', 'greet'], era);

    const say = (await a.listTools()).tools.find((tool) => tool.name === 'say');
    assert.equal(say?.description, 'Says what view a says');
    assert.deepEqual(Object.keys(say?.inputSchema.properties ?? {}), [], 'message is fixed');
    const said = await a.callTool({ name: 'say', arguments: {} });
    assert.equal(textOf(said), 'from view a', era);
    assert.equal(
      textOf(await a.callTool({ name: 'echo_upper', arguments: { message: 'hi' } })),
      'HI',
    );
    assert.equal(
      textOf(await b.callTool({ name: 'greet', arguments: { name: 'Ada' } })),
      'Hello, Ada!',
    );

    // Outside the view, and the renamed tool by its catalog name: not there at all.
    await assert.rejects(
      a.callTool({ name: 'greet', arguments: { name: 'Ada' } }),
      /Tool greet not found/,
    );
    await assert.rejects(a.callTool({ name: 'echo', arguments: { message: 'x' } }), /not found/);
    await assert.rejects(b.callTool({ name: 'echo', arguments: { message: 'x' } }), /not found/);
    // The whole catalog at /mcp is unchanged.
    assert.equal(
      textOf(await whole.callTool({ name: 'echo', arguments: { message: 'all' } })),
      'all',
    );
  }
});

test('HTTP: server/discover at a view; an unknown view is 404 naming the views; the rebinding guard holds', async (t) => {
  const url = await factoryHttp(t);
  const discovered = await rawModern(`${url}/a`, 'server/discover', {});
  assert.deepEqual(
    discovered.result?.supportedVersions,
    ['2026-07-28'],
    JSON.stringify(discovered),
  );
  const meta = discovered.result?._meta as Record<string, { name?: string }>;
  assert.equal(meta['io.modelcontextprotocol/serverInfo']?.name, 'mcp-factory');
  const listed = await rawModern(`${url}/a`, 'tools/list', {});
  const tools = (listed.result?.tools ?? []) as Array<{ name: string }>;
  assert.deepEqual(tools.map((tool) => tool.name).sort(), ['echo_upper', 'say']);

  for (const init of [
    { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) },
    { method: 'GET' },
  ]) {
    const response = await fetch(`${url}/nope`, {
      ...init,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
    });
    assert.equal(response.status, 404, init.method);
    assert.deepEqual(await response.json(), {
      jsonrpc: '2.0',
      error: { code: -32000, message: 'no view named "nope": the views are a, b' },
      id: null,
    });
  }

  // A page on another site resolving its name to 127.0.0.1 reaches no view (Host or Origin).
  for (const headers of [{ host: 'evil.example' }, { origin: 'http://evil.example' }] as Record<
    string,
    string
  >[]) {
    const rebound = await post(`${url}/a`, headers);
    assert.equal(rebound.status, 403, JSON.stringify(headers));
    assert.match(rebound.text, /evil\.example/);
  }
  assert.equal((await post(`${url}/a`, {})).status, 200);
});

/** A 2025 `initialize` POST with `headers` (node:http, which lets a test set Host). */
function post(url: string, headers: Record<string, string>) {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'page', version: '1' },
    },
  });
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

test('HTTP with OAuth: /mcp/<view> is authenticated exactly like /mcp', async (t) => {
  const as = await startIntrospectionServer();
  t.after(() => as.close());
  const exp = Math.floor(Date.now() / 1000) + 3600;
  as.tokens.set('alice-token', { active: true, sub: 'alice', scope: 'user', exp });
  as.tokens.set('old-token', { active: false });
  const url = await factoryHttp(t, [
    `oauth_server_url: ${as.url}`,
    'oauth_public_url: http://127.0.0.1/mcp',
  ]);
  const ping = (path: string, token?: string) =>
    fetch(`${url}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
  for (const path of ['', '/a', '/nope']) {
    for (const token of [undefined, 'old-token', 'made-up']) {
      const refused = await ping(path, token);
      assert.equal(refused.status, 401, `${path || '/mcp'} with ${token}`);
      assert.match(refused.headers.get('www-authenticate') ?? '', /^Bearer .*resource_metadata=/);
    }
  }
  for (const era of ERAS) {
    assert.deepEqual(await names(await connect(t, `${url}/a`, era, 'alice-token')), [
      'echo_upper',
      'say',
    ]);
    await assert.rejects(connect(t, `${url}/b`, era), { status: 401 });
  }
  // Only once authenticated does a caller learn which views there are.
  assert.equal((await ping('/nope', 'alice-token')).status, 404);
});

test('stdio: --view picks the view (mcp-factory in both eras, mcp-proxy)', async (t) => {
  const dir = home(t);
  const config = join(dir, 'views.yaml');
  for (const era of ERAS) {
    const client = new Client(
      { name: `views-stdio-${era}`, version: '1.0.0' },
      { versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: versionOfEra(era) } } },
    );
    const { client: a } = await connectStdio(t, {
      bin: FACTORY_BIN,
      args: ['-c', config, '-p', 'echo', 'greet', '--view', 'a'],
      home: dir,
      client,
    });
    assert.deepEqual(await names(a), ['echo_upper', 'say'], era);
    assert.equal(textOf(await a.callTool({ name: 'say', arguments: {} })), 'from view a');
    await assert.rejects(a.callTool({ name: 'greet', arguments: { name: 'x' } }), /not found/);
  }
  const { client: b } = await connectStdio(t, {
    bin: PROXY_BIN,
    args: ['-c', config, '-a', 'echo', 'greet', '--mgmt-port', '0', '--view', 'b'],
    home: dir,
  });
  assert.deepEqual(await names(b), ['greet']);
});

test('--view naming no view, or with --http: refused at start, saying what to do', async (t) => {
  const dir = home(t);
  const config = join(dir, 'views.yaml');
  for (const [bin, plugins] of [
    [FACTORY_BIN, '-p'],
    [PROXY_BIN, '-a'],
  ] as const) {
    const extra = bin === PROXY_BIN ? ['--mgmt-port', '0'] : [];
    const unknown = await runServerBin(
      t,
      bin,
      ['-c', config, plugins, 'echo', '--view', 'nope', ...extra],
      /serving/,
      { env: { HOME: dir } },
    );
    assert.equal(unknown.exitCode, 1, unknown.stderr());
    assert.match(unknown.stderr(), /Error: no view named "nope": the views are a, b\n/);
    assert.doesNotMatch(unknown.stderr(), /Internal error|\s+at /);

    const overHttp = await runServerBin(
      t,
      bin,
      ['-c', config, plugins, 'echo', '--view', 'a', '--http', '0', ...extra],
      /serving/,
      { env: { HOME: dir } },
    );
    assert.equal(overHttp.exitCode, 1, overHttp.stderr());
    assert.match(overHttp.stderr(), /Error: --view serves one view over stdio; .*\/mcp\/a\)/);
  }
});
