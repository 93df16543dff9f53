// 2025 HTTP sessions nobody DELETEs are reaped when idle, and past max_sessions a new session
// gets 503 with Retry-After; both are counted. One client (principal, else address) gets at most
// max_sessions_per_caller of them (429), legacy SSE streams included (issue 29, item 14). Real
// server, real HTTP, clients on several loopback addresses, real OAuth introspection.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startIntrospectionServer } from '@mcpbox/test-utils';
import { RAW_INITIALIZE } from '../__fixtures__/testServer.ts';
import { createOAuth } from '../auth/oauth.ts';
import { recordingLogger } from '../gate/testing.ts';
import { createServer } from '../server.ts';

const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

function initialize(url: string, id = 1) {
  return fetch(url, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'abandoning-client', version: '1' },
      },
    }),
  });
}

function listTools(url: string, sessionId: string) {
  return fetch(url, {
    method: 'POST',
    headers: { ...HEADERS, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }),
  });
}

test('idle sessions are reaped, the cap answers 503 with Retry-After, both are counted', async (t) => {
  const server = createServer({
    transport: 'http',
    port: 0,
    sessionIdleTimeout: 1,
    maxSessions: 2,
  });
  const url = (await server.start()) as string;
  t.after(() => server.close());

  const ids: string[] = [];
  for (const id of [1, 2]) {
    const response = await initialize(url, id);
    assert.equal(response.status, 200);
    ids.push(response.headers.get('mcp-session-id') as string);
    await response.text();
  }
  assert.equal(server.stats.sessions, 2);

  const refused = await initialize(url, 3);
  assert.equal(refused.status, 503);
  assert.equal(refused.headers.get('retry-after'), '30');
  assert.match(await refused.text(), /Too many open sessions/);
  assert.equal(server.stats.sessions_refused, 1);

  // Keep the first session busy; the second goes silent and is reaped.
  for (let i = 0; i < 40 && server.stats.sessions_reaped === 0; i++) {
    const kept = await listTools(url, ids[0]);
    assert.equal(kept.status, 200);
    await kept.text();
    await sleep(100);
  }
  assert.equal(server.stats.sessions_reaped, 1);
  assert.equal(server.stats.sessions, 1);
  const gone = await listTools(url, ids[1]);
  assert.equal(gone.status, 404, 'a reaped session is gone, the client starts over');
  await gone.text();

  const fresh = await initialize(url, 4);
  assert.equal(fresh.status, 200, 'room again for a new session');
  await fresh.text();
});

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request from `localAddress` (any 127.x.y.z); resolves with the first chunk of a stream. */
function rawRequest(
  url: string,
  options: { method: string; localAddress: string; headers?: Record<string, string> },
  body?: string,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, options, (res) => {
      let text = '';
      const done = () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text });
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        // An SSE stream stays open: its first event is enough.
        if (res.headers['content-type']?.startsWith('text/event-stream')) done();
      });
      res.on('end', done);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const INITIALIZE = JSON.stringify(RAW_INITIALIZE);

function initializeFrom(url: string, localAddress: string, headers: Record<string, string> = {}) {
  return rawRequest(
    url,
    { method: 'POST', localAddress, headers: { ...HEADERS, ...headers } },
    INITIALIZE,
  );
}

test('one address gets at most max_sessions_per_caller (429), legacy SSE included; max_sessions still caps all', async (t) => {
  const server = createServer({
    transport: 'http',
    port: 0,
    maxSessions: 3,
    maxSessionsPerCaller: 2,
  });
  const url = (await server.start()) as string;
  t.after(() => server.close());
  const [greedy, other, late] = ['127.0.0.2', '127.0.0.3', '127.0.0.4'];

  const held = [await initializeFrom(url, greedy), await initializeFrom(url, greedy)];
  for (const answer of held) assert.equal(answer.status, 200, answer.body);
  const third = await initializeFrom(url, greedy);
  assert.equal(third.status, 429, third.body);
  assert.equal(third.headers['retry-after'], '30');
  assert.match(
    third.body,
    /Too many open sessions for this client \(2, .*max_sessions_per_caller\)/,
  );
  const sse = await rawRequest(url.replace(/\/mcp$/, '/sse'), {
    method: 'GET',
    localAddress: greedy,
    headers: { accept: 'text/event-stream' },
  });
  assert.equal(sse.status, 429, 'a legacy SSE stream takes a session slot too');

  assert.equal((await initializeFrom(url, other)).status, 200, 'another address has its own');
  const full = await initializeFrom(url, late);
  assert.equal(full.status, 503, full.body);
  assert.match(full.body, /on this server \(3, .*max_sessions\)/);
  assert.equal(server.stats.sessions_refused, 3);

  const gone = await rawRequest(url, {
    method: 'DELETE',
    localAddress: greedy,
    headers: { 'mcp-session-id': held[0].headers['mcp-session-id'] as string },
  });
  assert.equal(gone.status, 200);
  assert.equal((await initializeFrom(url, late)).status, 200, 'a DELETEd session frees its slot');
});

test('an initialize the transport refuses (406) holds no session and no slot', async (t) => {
  const server = createServer({ transport: 'http', port: 0, maxSessions: 1 });
  const url = (await server.start()) as string;
  t.after(() => server.close());
  for (let i = 0; i < 3; i++) {
    const refused = await initializeFrom(url, '127.0.0.1', { accept: 'application/json' });
    assert.equal(refused.status, 406, refused.body);
  }
  const opened = await initializeFrom(url, '127.0.0.1');
  assert.equal(opened.status, 200, `${server.stats.sessions} sessions left open: ${opened.body}`);
  assert.equal(server.stats.sessions, 1);
});

test('with OAuth the cap is per principal: two tokens of one user share it, another user from the same address has his own', async (t) => {
  const as = await startIntrospectionServer();
  t.after(() => as.close());
  const active = (sub: string) => ({ active: true, sub, client_id: 'app', scope: '' });
  as.tokens.set('alice-laptop', active('alice'));
  as.tokens.set('alice-phone', active('alice'));
  as.tokens.set('bob', active('bob'));
  const oauth = createOAuth(
    {
      transport: 'http',
      oauth_enabled: true,
      oauth_server_url: as.url,
      oauth_public_url: 'http://127.0.0.1/mcp',
      oauth_cache_ttl: 0,
      oauth_required_scopes: [],
    },
    recordingLogger(),
  );
  assert.ok(oauth);
  const server = createServer(
    { transport: 'http', port: 0, maxSessionsPerCaller: 1 },
    { httpMiddleware: oauth.middleware, configureApp: (app) => oauth.configureApp(app) },
  );
  const url = (await server.start()) as string;
  t.after(() => server.close());
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  assert.equal((await initializeFrom(url, '127.0.0.1', bearer('alice-laptop'))).status, 200);
  const second = await initializeFrom(url, '127.0.0.1', bearer('alice-phone'));
  assert.equal(second.status, 429, second.body);
  assert.equal(
    (await initializeFrom(url, '127.0.0.1', bearer('bob'))).status,
    200,
    'bob is another caller',
  );
});
