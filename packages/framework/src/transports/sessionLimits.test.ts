// 2025 HTTP sessions nobody DELETEs are reaped when idle, and past max_sessions a new session
// gets 503 with Retry-After; both are counted. Real server, real HTTP.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
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
