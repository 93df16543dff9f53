/**
 * Approvals across replicas through a real redis-server: the grant book's and the desk's
 * contract, and whoever can write Redis (without the cluster's secret) cannot make a grant: a
 * grant record written straight into Redis, or a genuine one copied under another id, is refused.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startRedisServer } from '@mcpbox/test-utils';
import { Redis } from 'ioredis';
import { approvalsContract } from '../approvals/approvals.contract.ts';
import { GrantBook } from '../approvals/grants.ts';
import { clusterLinks } from './testing.ts';

let clusters = 0;

approvalsContract('redis', async (t) => {
  const redis = await startRedisServer(t);
  const [a, b] = await clusterLinks(t, redis.url, `approvals${clusters++}`);
  return { a: a!.records, b: b!.records };
});

test('a grant record written into Redis, or copied under another id, is refused', async (t) => {
  const redis = await startRedisServer(t);
  const [a, b] = await clusterLinks(t, redis.url, 'forge-grant');
  const [issuer, taker] = [a!, b!].map((link) => new GrantBook(link.records, () => link.keys));
  const raw = new Redis(redis.url);
  t.after(() => raw.quit());
  const subject = {
    principal: 'sub:mallory',
    server: 'billing',
    tool: 'billing__refund',
    argsDigest: 'a'.repeat(64),
    policyVersion: 'b'.repeat(64),
  };
  const { grant, token } = await issuer.issue(subject, 'sub:olga', 60_000);
  const [id, mac] = token.split('.') as [string, string];

  // A record of Mallory's making, under an id of her choosing, with any MAC she likes.
  const forgedId = 'f'.repeat(22);
  const forged = { grant: { ...grant, id: forgedId, by: 'sub:root' } };
  await raw.set(`forge-grant:approvals:grant:${forgedId}`, JSON.stringify(forged));
  const made = await taker.take(`${forgedId}.${mac}`, subject);
  assert.equal(made.ok ? '' : made.reason, 'forged', JSON.stringify(made));

  // The genuine, signed record copied under the forged id: the signature binds its key.
  const genuine = await raw.get(`forge-grant:approvals:grant:${id}`);
  assert.ok(genuine, 'the grant is shared through Redis');
  await raw.set(`forge-grant:approvals:grant:${forgedId}`, genuine);
  const copied = await taker.take(`${forgedId}.${mac}`, subject);
  assert.equal(copied.ok ? '' : copied.reason, 'forged', JSON.stringify(copied));

  // The genuine one is still good, once, on the other replica.
  assert.equal((await taker.take(token, subject)).ok, true);
  assert.equal((await issuer.take(token, subject)).ok, false);
});
