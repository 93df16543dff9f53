/**
 * Per-user upstream credentials, end to end: a real `mcp-proxy` over HTTP with OAuth against a
 * real (local) introspection server mirrors a real HTTP MCP server that knows its users by
 * bearer token (`upstream-whoami.ts`). Each principal's calls reach the upstream as that
 * principal — with a per-user secret from the file backend (`${secret:github/{principal}}`), or
 * with a token exchanged for the caller's own (RFC 8693, at a real local token endpoint); a caller
 * without a credential gets an error naming what to set up; no credential reaches the tool-call
 * log, the proxy's stderr or an error text.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { startWhoamiHttp } from '@mcpbox/framework/testing';
import {
  connectHttp,
  textOf as resultText,
  startHttpProxy,
  startIntrospectionServer,
  stopGroup,
  waitFor,
} from '@mcpbox/test-utils';
import type { Client } from '@modelcontextprotocol/client';
import { testdir } from './__fixtures__/testdir.ts';

const USERS = ['alice', 'bob', 'carol'];
const SECRETS = {
  alice: 'gh-alice-secret-0123456789',
  bob: 'gh-bob-secret-9876543210',
  list: 'gh-list-service-555555',
};

/** Introspection answering `<user>-token` for each user, and the upstream knowing `tokens`. */
async function services(t: TestContext, tokens: Record<string, string>) {
  const as = await startIntrospectionServer();
  t.after(() => as.close());
  for (const user of USERS) {
    as.tokens.set(`${user}-token`, {
      active: true,
      sub: user,
      client_id: 'credentials-test',
      exp: Math.floor(Date.now() / 1000) + 3600,
    });
  }
  const upstream = await startWhoamiHttp(tokens);
  t.after(() => stopGroup(upstream.child));
  return { as, upstream };
}

/** mcp-proxy serving `config` with OAuth, the mirror loaded, and a client per user. */
async function proxyWith(
  t: TestContext,
  as: { url: string },
  config: string[],
  files: Record<string, string> = {},
) {
  const yaml = [`oauth_server_url: ${as.url}`, 'oauth_public_url: http://127.0.0.1/mcp', ...config];
  const dir = testdir({ ...files, 'proxy.yaml': `${yaml.join('\n')}\n` }, t);
  const proxy = await startHttpProxy(t, ['-c', join(dir, 'proxy.yaml'), '-a', 'github'], {
    env: { HOME: dir, LIST_TOKEN: SECRETS.list, XCHG_SECRET: 'client-secret-xyz' },
    timeoutMs: 60_000,
  });
  const clients: Record<string, Client> = {};
  for (const user of USERS) {
    clients[user] = await connectHttp(t, proxy.mcpUrl, { name: user, token: `${user}-token` });
  }
  const tools = (await clients.alice.listTools()).tools.map((tool) => tool.name);
  for (const name of ['whoami', 'status']) {
    assert.ok(tools.includes(name), `the upstream's ${name} is listed: ${tools.join(', ')}`);
  }
  const call = (user: string, name: 'whoami' | 'status' = 'whoami') =>
    clients[user].callTool({ name, arguments: {} });
  return { dir, proxy, call };
}

/** The tool-call log once it has `lines` entries. */
async function toolLog(dir: string, lines: number): Promise<string> {
  const file = join(dir, '.mcp_proxy', 'logs', 'tool_calls.jsonl');
  const count = () => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').length : 0);
  await waitFor(() => count() >= lines, `${lines} tool-call log lines`);
  return readFileSync(file, 'utf8');
}

test('per-user secrets: each principal reaches the upstream as itself', async (t) => {
  const { as, upstream } = await services(t, {
    [SECRETS.alice]: 'alice',
    [SECRETS.bob]: 'bob',
    [SECRETS.list]: 'lister',
  });
  const { dir, proxy, call } = await proxyWith(
    t,
    as,
    [
      'secrets:',
      '  backend: file',
      '  file: ~/secrets',
      'plugins:',
      '  github:',
      `    url: ${upstream.url}`,
      '    headers:',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a placeholder in the YAML
      '      Authorization: "Bearer ${secret:github/{principal}}"',
      '    list_headers:',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a placeholder in the YAML
      '      Authorization: "Bearer ${LIST_TOKEN}"',
    ],
    { secrets: `github/sub:alice=${SECRETS.alice}\ngithub/sub:bob=${SECRETS.bob}\n` },
  );
  assert.equal(resultText(await call('alice')), 'you are alice');
  assert.equal(resultText(await call('bob')), 'you are bob');
  assert.equal(resultText(await call('alice')), 'you are alice');

  const carol = await call('carol');
  assert.equal(carol.isError, true);
  assert.match(
    resultText(carol),
    /^upstream 'github': headers\.Authorization: no secret "github\/sub:carol" in the file backend \(.*\/secrets\): add it there to use these tools/,
  );
  // The upstream echoes the token it got (its own doing); the log must not keep it.
  assert.match(resultText(await call('bob', 'status')), new RegExp(SECRETS.bob));

  const log = await toolLog(dir, 5);
  assert.match(log, /you are bob/);
  for (const secret of Object.values(SECRETS)) {
    assert.ok(!log.includes(secret), 'no credential in the tool-call log');
    assert.ok(!proxy.stderr().includes(secret), 'no credential on stderr');
  }
});

/**
 * A real RFC 8693 token endpoint: exchanges `<user>-token` for `xchg-<user>` (an hour), for the
 * client `mcpbox` with its secret; carol's exchange is refused (`invalid_grant`).
 */
async function startTokenEndpoint(t: TestContext) {
  const exchanges: URLSearchParams[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const form = new URLSearchParams(body);
      const basic = `Basic ${Buffer.from('mcpbox:client-secret-xyz').toString('base64')}`;
      const answer = (status: number, json: object) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
      if (req.method !== 'POST' || req.url !== '/token') return answer(404, {});
      if (req.headers.authorization !== basic) return answer(401, { error: 'invalid_client' });
      exchanges.push(form);
      const user = /^(\w+)-token$/.exec(form.get('subject_token') ?? '')?.[1];
      const valid =
        form.get('grant_type') === 'urn:ietf:params:oauth:grant-type:token-exchange' &&
        form.get('subject_token_type') === 'urn:ietf:params:oauth:token-type:access_token' &&
        form.get('audience') === 'https://upstream.example';
      if (!valid || !user) return answer(400, { error: 'invalid_request' });
      if (user === 'carol') return answer(400, { error: 'invalid_grant' });
      answer(200, {
        access_token: `xchg-${user}-0123456789`,
        issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        token_type: 'Bearer',
        expires_in: 3600,
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
  return { url, exchanges };
}

test('token exchange: the caller’s own token becomes its upstream token, cached', async (t) => {
  const { as, upstream } = await services(t, {
    'xchg-alice-0123456789': 'alice',
    'xchg-bob-0123456789': 'bob',
    [SECRETS.list]: 'lister',
  });
  const endpoint = await startTokenEndpoint(t);
  const { dir, proxy, call } = await proxyWith(t, as, [
    'plugins:',
    '  github:',
    `    url: ${upstream.url}`,
    '    list_headers:',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a placeholder in the YAML
    '      Authorization: "Bearer ${LIST_TOKEN}"',
    '    token_exchange:',
    `      token_url: ${endpoint.url}`,
    '      client_id: mcpbox',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a placeholder in the YAML
    '      client_secret: ${XCHG_SECRET}',
    '      audience: https://upstream.example',
  ]);
  assert.equal(resultText(await call('alice')), 'you are alice');
  assert.equal(resultText(await call('bob')), 'you are bob');
  assert.equal(resultText(await call('alice')), 'you are alice');
  // One exchange per principal: alice's second call reused her token.
  assert.deepEqual(
    endpoint.exchanges.map((form) => form.get('subject_token')),
    ['alice-token', 'bob-token'],
  );

  const carol = await call('carol');
  assert.equal(carol.isError, true);
  assert.equal(
    resultText(carol),
    "upstream 'github': token exchange for sub:carol failed: the token endpoint answered HTTP 400 (invalid_grant)",
  );
  assert.match(resultText(await call('alice', 'status')), /xchg-alice/);

  const log = await toolLog(dir, 5);
  for (const secret of ['xchg-alice-0123456789', 'xchg-bob-0123456789', 'client-secret-xyz']) {
    assert.ok(!log.includes(secret), 'no exchanged token in the tool-call log');
    assert.ok(!proxy.stderr().includes(secret), 'no exchanged token on stderr');
  }
});
