/**
 * `ipybox --http` and authentication, through the real bin: a bind beyond loopback without OAuth
 * is refused (naming ipybox's own flags) unless `--allow-unauthenticated`; the framework's OAuth
 * works from `--oauth-*` flags against a real introspection server; half an OAuth setup fails at
 * start; a loopback start says nothing about authentication. Clients connect only to 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { listeningAddress, runServerBin, startIntrospectionServer } from '@mcpbox/test-utils';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { IPYBOX_BIN, tempWorkspace } from '../server/testing.ts';

const READY = /ipybox MCP endpoint: (\S+)/;

async function ipybox(t: TestContext, args: string[]) {
  const ws = await tempWorkspace();
  t.after(() => ws.remove());
  return runServerBin(t, IPYBOX_BIN, ['--workspace', ws.dir, '--http', '0', ...args], READY);
}

/** The printed endpoint, reached through loopback whatever address it is bound to. */
function loopbackUrl(printed: string): URL {
  const url = new URL(printed);
  url.hostname = '127.0.0.1';
  return url;
}

async function connect(t: TestContext, url: URL, token?: string): Promise<Client> {
  const client = new Client({ name: 'ipybox-auth-test', version: '1.0.0' });
  const headers = token ? { authorization: `Bearer ${token}` } : undefined;
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  t.after(() => client.close());
  return client;
}

test('--host 0.0.0.0 without OAuth: refused, naming only options ipybox has', async (t) => {
  const run = await ipybox(t, ['--host', '0.0.0.0']);
  assert.equal(run.match, undefined, run.stderr());
  assert.equal(run.exitCode, 1);
  assert.equal(
    run.stderr(),
    'Error: refusing to serve the http endpoint on 0.0.0.0 without authentication: other ' +
      'machines can reach that address. Bind to loopback (--host 127.0.0.1), set ' +
      '--oauth-server-url and --oauth-public-url for OAuth, or serve it open on purpose with ' +
      '--allow-unauthenticated.\n',
  );
});

test('--allow-unauthenticated serves on 0.0.0.0 and warns that it is open', async (t) => {
  const run = await ipybox(t, ['--host', '0.0.0.0', '--allow-unauthenticated']);
  assert.ok(run.match, run.stderr());
  const url = loopbackUrl(run.match[1]);
  assert.equal(listeningAddress(Number(url.port)), '0.0.0.0');
  assert.match(run.stderr(), /WARN .*the http endpoint on 0\.0\.0\.0 has no authentication/);
  const client = await connect(t, url);
  const { tools } = await client.listTools();
  assert.ok(tools.some((tool) => tool.name === 'execute_ipython_cell'));
});

test('--oauth-server-url and --oauth-public-url: every request needs a valid token', async (t) => {
  const as = await startIntrospectionServer();
  t.after(() => as.close());
  as.tokens.set('good', { active: true, client_id: 'tester', scope: 'user' });
  const run = await ipybox(t, [
    '--oauth-server-url',
    as.url,
    '--oauth-public-url',
    'https://ipybox.example.com/mcp',
    '--oauth-required-scopes',
    'user',
  ]);
  assert.ok(run.match, run.stderr());
  const url = loopbackUrl(run.match[1]);

  const refused = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  assert.equal(refused.status, 401);
  assert.match(
    refused.headers.get('www-authenticate') ?? '',
    /resource_metadata="https:\/\/ipybox\.example\.com\/\.well-known\/oauth-protected-resource\/mcp"/,
  );
  const metadata = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', url));
  const document = (await metadata.json()) as { authorization_servers: string[] };
  assert.deepEqual(document.authorization_servers, [as.url]);

  const client = await connect(t, url, 'good');
  const { tools } = await client.listTools();
  assert.ok(tools.some((tool) => tool.name === 'execute_ipython_cell'));
  assert.ok(as.requests.some((form) => form.get('token') === 'good'));
});

test('--oauth-server-url without --oauth-public-url fails at start', async (t) => {
  const run = await ipybox(t, ['--oauth-server-url', 'http://127.0.0.1:9']);
  assert.equal(run.match, undefined, run.stderr());
  assert.equal(run.exitCode, 1);
  assert.equal(
    run.stderr(),
    'Error: invalid configuration: --oauth-public-url: not set, but OAuth is on: set both ' +
      '--oauth-server-url and --oauth-public-url\n',
  );
});

test('a loopback --http start says nothing about authentication', async (t) => {
  const run = await ipybox(t, []);
  assert.ok(run.match, run.stderr());
  assert.equal(new URL(run.match[1]).hostname, '127.0.0.1');
  assert.doesNotMatch(run.stderr(), /authenticat|oauth|allowedHosts/i);
});
