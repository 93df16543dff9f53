/**
 * The Redis record store: the record store contract on a real redis-server (two links, as two
 * replicas), and what whoever can write Redis without the cluster's secret can do to it:
 * nothing that is ever used.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startRedisServer, waitFor } from '@mcpbox/test-utils';
import { Redis } from 'ioredis';
import { recordStoreContract } from '../state/records.contract.ts';
import { UnverifiedRecordError } from '../state/records.ts';
import { ClusterLink } from './link.ts';
import { clusterLinks } from './testing.ts';

let clusters = 0;

recordStoreContract('redis', async (t) => {
  const redis = await startRedisServer(t);
  const [a, b] = await clusterLinks(t, redis.url, `records${clusters++}`);
  return { a: a!.records, b: b!.records };
});

function raw(t: { after(fn: () => unknown): void }, url: string): Redis {
  const client = new Redis(url);
  client.on('error', () => undefined);
  t.after(() => client.quit().catch(() => undefined));
  return client;
}

test('records written without the secret, or moved to another key or entry, are refused', async (t) => {
  const redis = await startRedisServer(t);
  const [link] = await clusterLinks(t, redis.url, 'tamper', 1);
  const store = link!.records;
  const attacker = raw(t, redis.url);

  await attacker.set('tamper:k', '{"lockedOut":false}');
  await assert.rejects(store.get('k'), UnverifiedRecordError);
  await assert.rejects(
    store.update('k', () => ({ value: 'x', result: 0 })),
    UnverifiedRecordError,
    'nothing is decided on a record that does not verify',
  );
  assert.equal(await attacker.get('tamper:k'), '{"lockedOut":false}', 'and nothing written');

  await store.set('genuine', 'yes');
  await attacker.set('tamper:other', (await attacker.get('tamper:genuine'))!);
  await assert.rejects(store.get('other'), /tamper:other' was refused/);

  await store.setEntry('m', 'session:alice', 'unlocked');
  const signed = await attacker.hget('tamper:m', 'session:alice');
  await attacker.hset('tamper:m', 'session:mallory', signed!);
  await attacker.hset('tamper:m', 'session:eve', 'unlocked');
  assert.deepEqual(await store.entries('m'), new Map([['session:alice', 'unlocked']]));
});

test('another cluster secret reads nothing of this one; unsigned messages are dropped', async (t) => {
  const redis = await startRedisServer(t);
  const [link] = await clusterLinks(t, redis.url, 'secrets', 1);
  const other = await ClusterLink.connect({
    redisUrl: redis.url,
    name: 'secrets',
    fallback: 'none',
    secret: 'a-different-secret-of-enough-length-0123',
  });
  t.after(() => other.close());
  await link!.records.set('k', 'v');
  await assert.rejects(other.records.get('k'), UnverifiedRecordError);

  const received: string[] = [];
  await link!.records.subscribe('news', (m) => received.push(m));
  await link!.publish('news', 'forged');
  await other.records.publish('news', 'wrong secret');
  await link!.records.publish('news', 'signed');
  await waitFor(() => received.length > 0, 'the signed message');
  assert.deepEqual(received, ['signed']);
});
