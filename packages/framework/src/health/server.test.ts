import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PortInUseError, type Readiness, type ServerStats, startHealthServer } from './server.ts';

interface Detailed {
  connections: number;
  requests: number;
  errors: number;
  last_request: string | null;
  uptime_seconds: number;
  started_at: string;
}
const json = async <T = Record<string, unknown>>(response: Response | Promise<Response>) =>
  (await (await response).json()) as T;

// Counters moving after real MCP calls are checked end to end in
// packages/proxy/src/commands/factory/serve.test.ts; here the stats object is a plain one we change.

test('endpoints answer JSON from live state; readiness goes 503 → 200', async (t) => {
  const stats: ServerStats = { connections: 0, requests: 0, errors: 0, last_request: null };
  let readiness: Readiness = { ready: false, error: 'loading plugins: echo' };
  const health = await startHealthServer({
    port: 0,
    stats,
    readiness: () => readiness,
    plugins: () => ({ plugins: [{ name: 'echo', tools: ['echo'], resources: [], prompts: [] }] }),
  });
  t.after(() => health.close());
  assert.match(health.url, /^http:\/\/127\.0\.0\.1:\d+$/);

  const basic = await fetch(`${health.url}/health`);
  assert.equal(basic.status, 200);
  assert.equal(basic.headers.get('content-type'), 'application/json');
  const body = await json<{ status: string; timestamp: string }>(basic);
  assert.equal(body.status, 'ok');
  assert.ok(!Number.isNaN(Date.parse(body.timestamp)));

  const before = await json<Detailed>(fetch(`${health.url}/health/detailed`));
  assert.equal(before.requests, 0);
  assert.equal(before.last_request, null);
  assert.equal(typeof before.uptime_seconds, 'number');
  assert.ok(!Number.isNaN(Date.parse(before.started_at)));

  stats.connections = 2;
  stats.requests = 5;
  stats.errors = 1;
  stats.last_request = new Date('2026-12-02T13:00:00Z');
  const after = await json<Detailed>(fetch(`${health.url}/health/detailed`));
  assert.deepEqual(
    { c: after.connections, r: after.requests, e: after.errors, l: after.last_request },
    { c: 2, r: 5, e: 1, l: '2026-12-02T13:00:00.000Z' },
  );

  const notReady = await fetch(`${health.url}/health/ready`);
  assert.equal(notReady.status, 503);
  assert.deepEqual(await notReady.json(), { ready: false, error: 'loading plugins: echo' });
  readiness = { ready: true };
  const ready = await fetch(`${health.url}/health/ready`);
  assert.equal(ready.status, 200);
  assert.deepEqual(await ready.json(), { ready: true });

  const plugins = await json<{ plugins: Array<{ tools: string[] }> }>(
    fetch(`${health.url}/health/plugins`),
  );
  assert.deepEqual(plugins.plugins[0].tools, ['echo']);
});

test('extra routes plug in; unknown paths 404; other methods 405', async (t) => {
  const health = await startHealthServer({
    port: 0,
    stats: () => ({ connections: 0, requests: 0, errors: 0, last_request: null }),
    routes: { '/metrics': (_req, res) => res.end('mcp_requests_total 0\n') },
  });
  t.after(() => health.close());
  assert.equal(await (await fetch(`${health.url}/metrics`)).text(), 'mcp_requests_total 0\n');
  health.addRoute('/late', (_req, res) => res.end('added later'));
  assert.equal(await (await fetch(`${health.url}/late`)).text(), 'added later');

  const missing = await fetch(`${health.url}/nope`);
  assert.equal(missing.status, 404);
  assert.deepEqual(await missing.json(), { error: 'no such endpoint: /nope' });
  const post = await fetch(`${health.url}/health`, { method: 'POST' });
  assert.equal(post.status, 405);
  assert.equal(post.headers.get('allow'), 'GET, HEAD');
});

test('a throwing route is a 500 with a generic body, and the server keeps serving', async (t) => {
  const health = await startHealthServer({
    port: 0,
    stats: { connections: 0, requests: 0, errors: 0, last_request: null },
    routes: {
      '/boom': () => {
        throw new Error('secret detail');
      },
    },
  });
  t.after(() => health.close());
  const boom = await fetch(`${health.url}/boom`);
  assert.equal(boom.status, 500);
  assert.deepEqual(await boom.json(), { error: 'internal error' });
  assert.equal((await fetch(`${health.url}/health`)).status, 200);
});

test('a busy port is a clear error', async (t) => {
  const stats = { connections: 0, requests: 0, errors: 0, last_request: null };
  const first = await startHealthServer({ port: 0, stats });
  t.after(() => first.close());
  await assert.rejects(startHealthServer({ port: first.port, stats }), (error: unknown) => {
    assert.ok(error instanceof PortInUseError);
    assert.equal(
      error.message,
      `health port ${first.port} on 127.0.0.1 is already in use (choose another with --health-port or health_port)`,
    );
    return true;
  });
});
