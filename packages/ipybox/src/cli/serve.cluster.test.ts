/**
 * `ipybox --http` in cluster mode (`MCP_REDIS_URL`): Redis down at start is a clear error and an
 * exit, no stack; with Redis up it joins the cluster, its keys derived from the cluster secret
 * (none of them in Redis).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { freePort, runServerBin, startRedisServer, TEST_CLUSTER_SECRET } from '@mcpbox/test-utils';
import { IPYBOX_BIN, tempWorkspace } from '../server/testing.ts';

test('ipybox --http with MCP_REDIS_URL: Redis down is a clear error; up, it joins', async (t) => {
  const ws = await tempWorkspace();
  t.after(() => ws.remove());
  const dead = `redis://127.0.0.1:${await freePort()}`;
  const refused = await runServerBin(
    t,
    IPYBOX_BIN,
    ['--workspace', ws.dir, '--http', '0'],
    /ipybox MCP endpoint/,
    { env: { MCP_REDIS_URL: dead, MCP_CLUSTER_SECRET: TEST_CLUSTER_SECRET } },
  );
  assert.equal(refused.match, undefined, refused.stderr());
  assert.equal(refused.exitCode, 1);
  assert.match(refused.stderr(), new RegExp(`Error: cannot reach the cluster's Redis at ${dead}`));
  assert.doesNotMatch(refused.stderr(), /\n\s+at /);

  const redis = await startRedisServer(t);
  const joined = await runServerBin(
    t,
    IPYBOX_BIN,
    ['--workspace', ws.dir, '--http', '0'],
    /ipybox MCP endpoint: (\S+)/,
    { env: { MCP_REDIS_URL: redis.url, MCP_CLUSTER_SECRET: TEST_CLUSTER_SECRET } },
  );
  assert.ok(joined.match, joined.stderr());
  assert.match(joined.stderr(), /cluster 'mcpbox': replica \S+ sharing state through Redis/);
  const { Redis } = await import('ioredis');
  const probe = new Redis(redis.url);
  probe.on('error', () => undefined); // Redis goes first in t.after
  t.after(() => probe.quit());
  assert.deepEqual(await probe.keys('mcpbox:security:*'), [], 'no key of the cluster in Redis');
});
