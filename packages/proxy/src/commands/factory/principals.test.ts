/**
 * Who a caller is, end to end: the real mcp-factory bin over HTTP with a TOTP gate on
 * `echo_upper`, real SDK clients of both eras.
 *
 * Behind OAuth (a real introspection server): tokens whose answers name only a `username` are
 * two principals, not one (an unlock of one opens nothing for the other); a token naming nobody
 * is refused; another principal's `Mcp-Session-Id` is "not found". Without OAuth, the tool-call
 * log keeps too little of a session id to act as that session.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { type Era, versionOfEra } from '@mcpbox/framework';
import {
  codeAt,
  FACTORY_BIN,
  newSecret,
  runServerBin,
  startIntrospectionServer,
  waitFor,
} from '@mcpbox/test-utils';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { testdir } from '../../proxy/__fixtures__/testdir.ts';

type After = { after(fn: () => unknown): void };

const GATE = ['gate:', '  groups:', '    ops:', '      secret_ref: MCP_TEST_GATE_OPS'];

/** mcp-factory serving `echo` over HTTP with `config` (YAML lines) and the gate's secret. */
async function factory(t: After, config: string[], secret: string) {
  const home = testdir(
    { 'factory.yaml': [...config, ...GATE, '      tools: [echo_upper]', ''].join('\n') },
    t,
  );
  const proc = await runServerBin(
    t,
    FACTORY_BIN,
    ['-c', join(home, 'factory.yaml'), '-p', 'echo', '--http', '0'],
    /MCP endpoint:\s+(\S+)/,
    { env: { HOME: home, MCP_TEST_GATE_OPS: secret } },
  );
  assert.ok(proc.match, proc.stderr());
  return { url: proc.match[1] as string, home };
}

async function connect(t: After, url: string, era: Era, token?: string) {
  const client = new Client(
    { name: `principals-${era}`, version: '1.0.0' },
    { versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: versionOfEra(era) } } },
  );
  const headers = token ? { authorization: `Bearer ${token}` } : undefined;
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  await client.connect(transport);
  t.after(() => client.close());
  return { client, transport };
}

async function upper(client: Client, message: string): Promise<string> {
  const result = await client.callTool({ name: 'echo_upper', arguments: { message } });
  const text = (result.content as Array<{ text?: string }>)[0]?.text ?? '';
  return result.isError ? `error: ${text}` : text;
}

/** A 2025 request on session `id`, as any HTTP client can send it. */
function onSession(url: string, id: string, method: string, token?: string) {
  return fetch(url, {
    method,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      'mcp-session-id': id,
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    ...(method === 'POST' && {
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'echo_upper', arguments: { message: 'not yours' } },
      }),
    }),
  });
}

async function withOAuth(t: After) {
  const as = await startIntrospectionServer();
  t.after(() => as.close());
  const exp = Math.floor(Date.now() / 1000) + 3600;
  // RFC 7662 makes sub and client_id optional: these answers name a username only.
  as.tokens.set('alice-token', { active: true, username: 'alice', scope: 'user', exp });
  as.tokens.set('bob-token', { active: true, username: 'bob', scope: 'user', exp });
  as.tokens.set('nobody-token', { active: true, scope: 'user', exp });
  const secret = newSecret();
  const config = [`oauth_server_url: ${as.url}`, 'oauth_public_url: http://127.0.0.1/mcp'];
  return { ...(await factory(t, config, secret)), secret };
}

test('OAuth: tokens naming only a username are two principals in both eras; a token naming nobody is refused', async (t) => {
  const { url, secret } = await withOAuth(t);
  await assert.rejects(connect(t, url, 'legacy', 'nobody-token'), {
    status: 401,
    message: /Token names no sub, username or client_id/,
  });
  await assert.rejects(connect(t, url, 'modern', 'nobody-token'), { status: 401 });

  const alice = await connect(t, url, 'legacy', 'alice-token');
  const bobModern = await connect(t, url, 'modern', 'bob-token');
  const bobLegacy = await connect(t, url, 'legacy', 'bob-token');
  assert.match(await upper(bobModern.client, 'x'), /^error: Group 'ops' is locked/);

  const unlocked = await alice.client.callTool({
    name: 'gate_unlock',
    arguments: { group: 'ops', code: codeAt(secret, Date.now()) },
  });
  assert.equal(unlocked.isError, undefined, JSON.stringify(unlocked));
  // The unlock is alice's, wherever she calls from (another era, no session)…
  const aliceModern = await connect(t, url, 'modern', 'alice-token');
  assert.equal(await upper(aliceModern.client, 'alice'), 'ALICE');
  // … and no one else's.
  assert.match(await upper(bobModern.client, 'x'), /^error: Group 'ops' is locked/);
  assert.match(await upper(bobLegacy.client, 'x'), /^error: Group 'ops' is locked/);
});

test("OAuth: another principal's session id is not found (Streamable HTTP POST, GET, DELETE; SSE); the owner's session goes on", async (t) => {
  const { url, secret } = await withOAuth(t);
  const alice = await connect(t, url, 'legacy', 'alice-token');
  await alice.client.callTool({
    name: 'gate_unlock',
    arguments: { group: 'ops', code: codeAt(secret, Date.now()) },
  });
  const id = alice.transport.sessionId;
  assert.ok(id);

  const unknown = await onSession(url, 'no-such-session', 'POST', 'alice-token');
  assert.equal(unknown.status, 404);
  const notFound = await unknown.json();
  for (const method of ['POST', 'GET', 'DELETE']) {
    const stolen = await onSession(url, id, method, 'bob-token');
    assert.equal(stolen.status, 404, `${method} with bob's token on alice's session`);
    // The same answer as for a session that does not exist: nothing tells them apart.
    assert.deepEqual(await stolen.json(), notFound, method);
  }
  assert.deepEqual(notFound, {
    jsonrpc: '2.0',
    error: { code: -32001, message: 'Session not found' },
    id: null,
  });
  assert.equal(await upper(alice.client, 'still mine'), 'STILL MINE');

  // The legacy SSE transport: the stream's session is its opener's too.
  const stream = new AbortController();
  t.after(() => stream.abort());
  const sse = await fetch(new URL('/sse', url), {
    headers: { accept: 'text/event-stream', authorization: 'Bearer alice-token' },
    signal: stream.signal,
  });
  assert.equal(sse.status, 200);
  const endpoint = await endpointOf(sse);
  const post = (token: string) =>
    fetch(new URL(endpoint, url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
  const bobs = await post('bob-token');
  assert.equal(bobs.status, 404);
  assert.deepEqual(await bobs.json(), notFound);
  assert.equal((await post('alice-token')).status, 202);
});

/** The message endpoint an SSE stream names in its first event. */
async function endpointOf(response: Response): Promise<string> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    assert.ok(!done, `the stream ended before naming its endpoint: ${text}`);
    text += decoder.decode(value, { stream: true });
    const found = /event: endpoint\ndata: (\S+)/.exec(text);
    if (found) return found[1] as string;
  }
}

test('no OAuth: the tool-call log keeps 8 characters of a session id, which open no session', async (t) => {
  const secret = newSecret();
  const { url, home } = await factory(t, ['tool_log_dir: ./calls'], secret);
  const { client, transport } = await connect(t, url, 'legacy');
  await client.callTool({
    name: 'gate_unlock',
    arguments: { group: 'ops', code: codeAt(secret, Date.now()) },
  });
  assert.equal(await upper(client, 'mine'), 'MINE');
  const id = transport.sessionId;
  assert.ok(id && id.length > 8);

  const file = join(home, 'calls', 'tool_calls.jsonl');
  // Whole lines only: a line being written has no newline yet.
  const entries = () =>
    existsSync(file)
      ? readFileSync(file, 'utf8')
          .split('\n')
          .slice(0, -1)
          .map((line) => JSON.parse(line) as { tool: string; session?: string })
      : [];
  await waitFor(() => entries().length >= 2, 'both calls logged');
  assert.deepEqual(
    entries().map((e) => [e.tool, e.session]),
    [
      ['gate_unlock', id.slice(0, 8)],
      ['echo_upper', id.slice(0, 8)],
    ],
  );
  assert.ok(!readFileSync(file, 'utf8').includes(id), 'the whole session id is in no entry');
  // Whoever reads the log cannot act as the session (and so use its unlock).
  const logged = entries()[0]?.session as string;
  const taken = await onSession(url, logged, 'POST');
  assert.equal(taken.status, 404);
  assert.equal(await upper(client, 'still mine'), 'STILL MINE');
});
