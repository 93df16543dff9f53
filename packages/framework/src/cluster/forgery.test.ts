/**
 * Whoever can write the cluster's Redis must not own the gate or OAuth (issue 29, item 7). An
 * attacker with a raw Redis client — and no cluster secret — plants the gate handle key before
 * the replicas start, writes an unlock for its own 2025 session, moves a genuine unlock to its
 * session, and writes an introspection answer for a token it made up. A real server on a real
 * redis-server, driven by real SDK clients and real HTTP, refuses every one of them.
 */
import assert from 'node:assert/strict';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { codeAt, firstText, startIntrospectionServer, startRedisServer } from '@mcpbox/test-utils';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import express from 'express';
import { Redis } from 'ioredis';
import { startGatedServer } from '../__fixtures__/gatedServer.ts';
import { createOAuth } from '../auth/oauth.ts';
import { recordingLogger } from '../gate/testing.ts';
import { joinCluster } from './join.ts';

type After = { after(fn: () => unknown): void };

const CLUSTER_SECRET = randomBytes(32).toString('base64url');

/** A replica's membership in the cluster `name` on `redisUrl`, with its secret configured. */
async function join(t: After, redisUrl: string, name: string) {
  const membership = await joinCluster(
    { redisUrl, name, fallback: 'none', secret: CLUSTER_SECRET },
    { logger: recordingLogger() },
  );
  assert.ok(membership);
  t.after(() => membership.close());
  return membership;
}

/** The attacker: a plain Redis client, on the same Redis, without the cluster's secret. */
function attacker(t: After, redisUrl: string): Redis {
  const redis = new Redis(redisUrl);
  redis.on('error', () => undefined);
  t.after(() => redis.quit().catch(() => undefined));
  return redis;
}

async function client(t: After, url: string, era: 'legacy' | '2026-07-28') {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const c = new Client(
    { name: `attacker-${era}`, version: '1.0.0' },
    { versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: era } } },
  );
  await c.connect(transport);
  t.after(() => c.close());
  return { client: c, transport };
}

const secretAction = (c: Client, args: Record<string, unknown> = {}) =>
  c.callTool({ name: 'secret_action', arguments: { what: 'rm -rf', ...args } });

/** Where the gate keeps group `shell` of secret `S` (env backend), as its source shows. */
const gateId = createHash('sha256')
  .update('shell\u0000env\u0000\u0000S')
  .digest('hex')
  .slice(0, 32);

test('an unlock written into Redis, or moved there from another caller, unlocks nothing', async (t) => {
  const redis = await startRedisServer(t);
  const raw = attacker(t, redis.url);
  await join(t, redis.url, 'forge-unlock');
  const { url, secret } = await startGatedServer(t);
  const mallory = await client(t, url, 'legacy');
  const unlocks = `forge-unlock:gate:${gateId}:unlocked`;

  await raw.hset(unlocks, `session:${mallory.transport.sessionId}`, String(Date.now()));
  const forged = await secretAction(mallory.client);
  assert.equal(forged.isError, true, firstText(forged));
  assert.match(firstText(forged), /locked/);

  // A genuine unlock of another session, copied to Mallory's: still nothing.
  const alice = await client(t, url, 'legacy');
  const unlocked = await alice.client.callTool({
    name: 'gate_unlock',
    arguments: { group: 'shell', code: codeAt(secret, Date.now()) },
  });
  assert.equal(unlocked.isError, undefined, firstText(unlocked));
  assert.equal(firstText(await secretAction(alice.client)), 'done: rm -rf');
  const genuine = await raw.hget(unlocks, `session:${alice.transport.sessionId}`);
  assert.ok(genuine, 'the unlock is shared through Redis');
  await raw.hset(unlocks, `session:${mallory.transport.sessionId}`, genuine);
  const moved = await secretAction(mallory.client);
  assert.equal(moved.isError, true, firstText(moved));
  assert.match(firstText(moved), /locked/);
});

test('the gate state from before a lock, put back after it, does not revive the unlock', async (t) => {
  const redis = await startRedisServer(t);
  const raw = attacker(t, redis.url);
  await join(t, redis.url, 'forge-replay');
  const { url, secret } = await startGatedServer(t);
  const alice = await client(t, url, 'legacy');
  const unlocked = await alice.client.callTool({
    name: 'gate_unlock',
    arguments: { group: 'shell', code: codeAt(secret, Date.now()) },
  });
  assert.equal(unlocked.isError, undefined, firstText(unlocked));
  assert.equal(firstText(await secretAction(alice.client)), 'done: rm -rf');

  // Every gate key as it is now, to be put back byte for byte after the lock.
  const keys = await raw.keys('forge-replay:gate:*');
  const saved = await Promise.all(
    keys.map(async (key) => [key, await raw.dumpBuffer(key)] as const),
  );
  const locked = await alice.client.callTool({ name: 'gate_lock', arguments: { group: 'shell' } });
  assert.equal(firstText(locked), "Group 'shell' locked.");
  for (const [key, dump] of saved) await raw.restore(key, 0, dump!, 'REPLACE');

  const replayed = await secretAction(alice.client);
  assert.equal(replayed.isError, true, firstText(replayed));
  assert.match(firstText(replayed), /locked|unavailable/);
});

test('a gate handle signed with a key planted in Redis before the start is refused', async (t) => {
  const redis = await startRedisServer(t);
  const raw = attacker(t, redis.url);
  const planted = randomBytes(32);
  await raw.set('forge-handle:security:gate-handle-key', planted.toString('base64url'));
  await join(t, redis.url, 'forge-handle');
  const { url } = await startGatedServer(t);
  const mallory = await client(t, url, '2026-07-28');

  const claim = { g: 'shell', e: 0, x: Date.now() + 3600_000, n: 'forged' };
  const payload = Buffer.from(JSON.stringify(claim)).toString('base64url');
  const mac = createHmac('sha256', planted).update(payload).digest('base64url');
  const refused = await secretAction(mallory.client, { gate_handle: `${payload}.${mac}` });
  assert.equal(refused.isError, true, firstText(refused));
  assert.match(firstText(refused), /locked/);
});

test('an introspection answer written into Redis for a made-up token gets a 401', async (t) => {
  const redis = await startRedisServer(t);
  const raw = attacker(t, redis.url);
  await join(t, redis.url, 'forge-oauth');
  const as = await startIntrospectionServer();
  t.after(() => as.close());
  const oauth = createOAuth(
    {
      transport: 'http',
      oauth_enabled: true,
      oauth_server_url: as.url,
      oauth_public_url: 'https://mcp.example.com/mcp',
      oauth_cache_ttl: 600,
      oauth_required_scopes: [],
    },
    recordingLogger(),
  );
  assert.ok(oauth);
  const app = express();
  oauth.configureApp(app);
  app.post('/mcp', ...oauth.middleware, (req: { auth?: { extra?: object } }, res) => {
    res.json(req.auth?.extra ?? {});
  });
  const listener = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => listener.once('listening', resolve));
  t.after(() => new Promise((resolve) => listener.close(resolve)));
  const origin = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;

  const token = `made-up-${randomBytes(8).toString('hex')}`;
  const hash = createHash('sha256').update(token).digest('hex');
  const until = Date.now() + 3600_000;
  const entry = {
    kind: 'active',
    info: {
      clientId: 'admin-console',
      scopes: ['admin'],
      expiresAt: Math.floor(until / 1000),
      extra: { sub: 'root' },
    },
    until,
  };
  await raw.set(`forge-oauth:oauth:${hash}`, JSON.stringify(entry), 'PX', 3600_000);

  const response = await fetch(`${origin}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: '{}',
  });
  assert.equal(response.status, 401, await response.text());
  assert.equal(as.requests.length, 1, 'the authorization server was asked, and said no');
});
