/**
 * The introspection cache shared through a real redis-server: the cache contract, and real
 * verifiers as two replicas would run them — a token verified through one is not introspected
 * again by the other; the token never reaches Redis; with Redis away, verification still works
 * (it introspects).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startIntrospectionServer, startRedisServer } from '@mcpbox/test-utils';
import { IntrospectionTokenVerifier } from '../auth/introspection.ts';
import { createLogger } from '../logging/index.ts';
import { introspectionCacheContract } from '../state/introspectionCache.contract.ts';
import { shareSecurityState } from './security.ts';
import { clusterLinks } from './testing.ts';

let clusters = 0;

introspectionCacheContract('redis', async (t) => {
  const redis = await startRedisServer(t);
  const [link] = await clusterLinks(t, redis.url, `oauth${clusters++}`, 1);
  return { shared: link!.records, kill: () => redis.stop() };
});

test('replicas share verified introspection answers, never the token', async (t) => {
  const redis = await startRedisServer(t);
  const server = await startIntrospectionServer();
  t.after(() => server.close());
  const [link] = await clusterLinks(t, redis.url, 'oauth', 1);
  t.after(shareSecurityState(link!));

  const token = 'tok-4f1c9a-very-secret';
  server.tokens.set(token, {
    active: true,
    sub: 'alice',
    client_id: 'app',
    scope: 'read',
    exp: Math.floor(Date.now() / 1000) + 3600,
  });
  const verifier = () =>
    new IntrospectionTokenVerifier({
      introspectionUrl: `${server.url}/introspect`,
      cacheTtlSeconds: 600,
      logger: createLogger('test'),
    });
  const replicaA = verifier();
  const replicaB = verifier();

  const first = await replicaA.verifyAccessToken(token);
  assert.equal(server.requests.length, 1);
  // The shared write is not awaited by verify: wait for it to land.
  const deadline = Date.now() + 30_000;
  while ((await link!.redis.keys('oauth:oauth:*')).length === 0) {
    assert.ok(Date.now() < deadline, 'the entry reached Redis');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const second = await replicaB.verifyAccessToken(token);
  assert.equal(server.requests.length, 1, 'B used the shared answer');
  assert.deepEqual(second, first);
  assert.equal(second.token, token);

  const stored = await Promise.all(
    (await link!.redis.keys('oauth:*')).map((key) => link!.redis.get(key)),
  );
  assert.ok(stored.length > 0);
  for (const value of stored) assert.ok(!value?.includes(token), 'no token in Redis');

  await redis.stop();
  const third = verifier();
  await third.verifyAccessToken(token);
  assert.equal(server.requests.length, 2, 'Redis away: introspected, still verified');
});
