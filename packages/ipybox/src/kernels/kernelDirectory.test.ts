/**
 * The kernel directory contract in memory and on a real redis-server (two cluster links, as two
 * replicas), and a record written into Redis by someone without the cluster's secret — pointing
 * a handle of theirs at another caller's kernel — being refused.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryRecordStore } from '@mcpbox/framework';
import { clusterLinks } from '@mcpbox/framework/testing';
import { startRedisServer } from '@mcpbox/test-utils';
import { Redis } from 'ioredis';
import { kernelDirectoryContract } from './kernelDirectory.contract.ts';
import { redisKernelDirectory } from './kernelDirectory.ts';

kernelDirectoryContract('in memory', async () => {
  const store = new MemoryRecordStore();
  return { a: store, b: store };
});

let clusters = 0;

kernelDirectoryContract('redis', async (t) => {
  const redis = await startRedisServer(t);
  const [a, b] = await clusterLinks(t, redis.url, `kernels${clusters++}`);
  return { a: a!.records, b: b!.records };
});

test('a kernel record written into Redis without the secret is never used', async (t) => {
  const redis = await startRedisServer(t);
  const [link] = await clusterLinks(t, redis.url, 'forged-kernels', 1);
  const directory = redisKernelDirectory(link!);
  const attacker = new Redis(redis.url);
  attacker.on('error', () => undefined);
  t.after(() => attacker.quit().catch(() => undefined));
  const forged = { id: 'k9', digest: 'e'.repeat(64), owner: 'principal:alice', remoteId: 'r1' };
  await attacker.set('forged-kernels:ipybox:kernel:k9', JSON.stringify(forged));
  await assert.rejects(directory.kernel('k9'), /was refused/);
});
