import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig, readConfig } from '../config/load.ts';

test('no cluster configured: cluster is undefined', () => {
  assert.equal(loadConfig({ env: {} }).cluster, undefined);
});

test('MCP_REDIS_URL turns cluster mode on with the defaults', () => {
  const config = loadConfig({ env: { MCP_REDIS_URL: 'redis://127.0.0.1:6390' } });
  assert.deepEqual(config.cluster, {
    redisUrl: 'redis://127.0.0.1:6390',
    name: 'mcpbox',
    fallback: 'none',
  });
});

test('cluster: mapping with name and fallback; bad values are named', () => {
  const config = loadConfig({
    env: {},
    overrides: {
      cluster: { redis_url: 'rediss://cache:6380/2', name: 'prod-a', fallback: 'local' },
    },
  });
  assert.deepEqual(config.cluster, {
    redisUrl: 'rediss://cache:6380/2',
    name: 'prod-a',
    fallback: 'local',
  });
  const bad = readConfig({ env: { MCP_REDIS_URL: 'http://127.0.0.1:6379' } });
  assert.equal(bad.ok, false);
  assert.match(JSON.stringify(bad), /redis:\/\/ or rediss:\/\/ URL/);
  const badFallback = readConfig({
    env: {},
    overrides: { cluster: { redis_url: 'redis://h:1', fallback: 'maybe' as never } },
  });
  assert.match(JSON.stringify(badFallback), /one of none, local/);
});

test('an empty cluster: (or MCP_REDIS_URL empty) is one process on its own', () => {
  for (const cluster of ['', null]) {
    const result = readConfig({ env: {}, overrides: { cluster: cluster as never } });
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(result.config.cluster, undefined);
  }
  assert.equal(loadConfig({ env: { MCP_REDIS_URL: '' } }).cluster, undefined);
});

test('cluster.secret: kept when long enough; a short one is named, never echoed', () => {
  const secret = 'a-cluster-secret-of-forty-characters-000';
  const config = loadConfig({
    env: {},
    overrides: { cluster: { redis_url: 'redis://h:1', secret } },
  });
  assert.equal(config.cluster?.secret, secret);
  const short = readConfig({
    env: {},
    overrides: { cluster: { redis_url: 'redis://h:1', secret: 'hunter2-hunter2' } },
  });
  assert.equal(short.ok, false);
  assert.match(
    JSON.stringify(short),
    /cluster\.secret: expected a secret of at least 32 characters/,
  );
  assert.doesNotMatch(JSON.stringify(short), /hunter2/);
});
