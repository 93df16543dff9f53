import assert from 'node:assert/strict';
import { test } from 'node:test';
import { freePort, startRedisServer, TEST_CLUSTER_SECRET, waitFor } from '@mcpbox/test-utils';
import type { Logger } from '../logging/index.ts';
import { ClusterConfigError, ClusterLink, ClusterUnavailableError } from './link.ts';
import { redisUrlRisk } from './settings.ts';

function captureLogger(): { lines: string[]; logger: Logger } {
  const lines: string[] = [];
  const push = (msg: string) => {
    lines.push(msg);
  };
  return { lines, logger: { debug: push, info: push, warn: push, error: push } };
}

test('Redis down at start: a clear error naming the URL (not its password) and what to do', async () => {
  const port = await freePort();
  await assert.rejects(
    ClusterLink.connect({
      redisUrl: `redis://:hunter2@127.0.0.1:${port}`,
      name: 't',
      fallback: 'none',
      secret: TEST_CLUSTER_SECRET,
    }),
    (error: unknown) => {
      assert.ok(error instanceof ClusterUnavailableError);
      assert.match(error.message, new RegExp(`127\\.0\\.0\\.1:${port}`));
      assert.match(error.message, /cluster\.redis_url|MCP_REDIS_URL/);
      assert.match(error.message, /fallback: local/);
      assert.doesNotMatch(error.message, /hunter2/);
      return true;
    },
  );
});

test('no cluster secret, or a short one: refused before connecting, saying what to set', async () => {
  const port = await freePort();
  const settings = { redisUrl: `redis://127.0.0.1:${port}`, name: 't', fallback: 'none' as const };
  await assert.rejects(ClusterLink.connect(settings, { env: {} }), (error: unknown) => {
    assert.ok(error instanceof ClusterConfigError, String(error));
    assert.match(error.message, /cluster\.secret \(or MCP_CLUSTER_SECRET\)/);
    assert.match(error.message, /openssl rand -base64 32/);
    return true;
  });
  const short = 'tooshort-but-secret';
  await assert.rejects(
    ClusterLink.connect(settings, { env: { MCP_CLUSTER_SECRET: short } }),
    (error: unknown) => {
      assert.ok(error instanceof ClusterConfigError);
      assert.match(error.message, /19 characters; at least 32/);
      assert.doesNotMatch(error.message, new RegExp(short));
      return true;
    },
  );
});

test('a Redis URL without a password outside loopback is warned about; with one, or local, not', () => {
  assert.match(
    redisUrlRisk('redis://cache.internal:6379') ?? '',
    /no password and is not on loopback/,
  );
  assert.match(redisUrlRisk('rediss://10.0.0.5:6380/2') ?? '', /Set a password/);
  assert.equal(redisUrlRisk('redis://:pw@cache.internal:6379'), undefined);
  assert.equal(redisUrlRisk('redis://user:pw@cache.internal:6379'), undefined);
  for (const local of ['redis://127.0.0.1:6379', 'redis://localhost', 'redis://[::1]:6379'])
    assert.equal(redisUrlRisk(local), undefined, local);
  assert.doesNotMatch(redisUrlRisk('redis://user@cache:1') ?? '', /pw/);
});

test('joining through a password-less Redis beyond loopback says so at start', async () => {
  const { lines, logger } = captureLogger();
  // TEST-NET-1 (RFC 5737): nothing answers, the warning comes first.
  const settings = {
    redisUrl: 'redis://192.0.2.1:6379',
    name: 't',
    fallback: 'none' as const,
    secret: TEST_CLUSTER_SECRET,
  };
  await assert.rejects(ClusterLink.connect(settings, { logger, connectTimeoutMs: 200 }));
  assert.equal(lines.filter((l) => /no password and is not on loopback/.test(l)).length, 1);
});

test('publish reaches a subscriber on another link; loss and return are reported once each', async (t) => {
  const redis = await startRedisServer(t);
  const settings = {
    redisUrl: redis.url,
    name: 'linktest',
    fallback: 'none' as const,
    secret: TEST_CLUSTER_SECRET,
  };
  const { lines, logger } = captureLogger();
  const a = await ClusterLink.connect(settings, { logger });
  const b = await ClusterLink.connect(settings);
  t.after(() => Promise.all([a.close(), b.close()]));
  assert.deepEqual(a.status(), { connected: true });
  assert.equal(a.key('plugins', 'set'), 'linktest:plugins:set');

  const received: string[] = [];
  await b.subscribe('events', (message) => received.push(message));
  await a.publish('events', 'hello');
  await waitFor(() => received.includes('hello'), 'the published message');

  let restored = 0;
  a.onRestored(() => {
    restored++;
  });
  await redis.stop();
  await waitFor(() => !a.status().connected, 'the link to notice the loss');
  assert.match(a.status().error ?? '', /unreachable/);
  await assert.rejects(a.publish('events', 'lost'));
  await redis.start();
  await waitFor(() => a.status().connected && restored === 1, 'the link to come back');
  assert.equal(lines.filter((l) => /lost Redis/.test(l)).length, 1, lines.join('\n'));
  assert.equal(lines.filter((l) => / is back; /.test(l)).length, 1, lines.join('\n'));

  // The subscriber resubscribed by itself.
  await waitFor(() => b.status().connected, 'the subscriber to come back');
  await a.publish('events', 'again');
  await waitFor(() => received.includes('again'), 'a message after the return');
});
