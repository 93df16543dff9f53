import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startRedisServer } from '@mcpbox/test-utils';
import { Redis } from 'ioredis';
import { pluginSetContract } from '../state/pluginSet.contract.ts';
import { SharedPluginSet } from '../state/pluginSet.ts';
import { UnverifiedRecordError } from '../state/records.ts';
import { clusterLinks } from './testing.ts';

let clusters = 0;

pluginSetContract('redis', async (t) => {
  const redis = await startRedisServer(t);
  const [a, b] = await clusterLinks(t, redis.url, `plugins${clusters++}`);
  return { a: a!.records, b: b!.records };
});

test('a plugin set written into Redis without the secret is refused, so no replica loads it', async (t) => {
  const redis = await startRedisServer(t);
  const [link] = await clusterLinks(t, redis.url, 'forged-plugins', 1);
  const attacker = new Redis(redis.url);
  attacker.on('error', () => undefined);
  t.after(() => attacker.quit().catch(() => undefined));
  await attacker.set(
    'forged-plugins:plugins:shared',
    JSON.stringify({ plugins: ['/tmp/evil.js'], reloads: {} }),
  );
  const set = new SharedPluginSet(link!.records, link!.replicaId);
  await assert.rejects(set.read(), UnverifiedRecordError);
  await assert.rejects(set.added('echo'), UnverifiedRecordError, 'nothing decided on it either');
});
