import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startRedisServer } from '@mcpbox/test-utils';
import { Redis } from 'ioredis';
import { offer, pinBookContract } from '../pins/book.contract.ts';
import { PinBook } from '../pins/book.ts';
import { fingerprint } from '../pins/definition.ts';
import { fieldOf } from '../pins/record.ts';
import { clusterLinks } from './testing.ts';

let clusters = 0;

pinBookContract('redis', async (t) => {
  const redis = await startRedisServer(t);
  const [a, b] = await clusterLinks(t, redis.url, `pins${clusters++}`);
  return { a: a!.records, b: b!.records };
});

test('a pin written into Redis without the secret is refused: the changed tool stays quarantined', async (t) => {
  const redis = await startRedisServer(t);
  const [link] = await clusterLinks(t, redis.url, 'forged-pins', 1);
  const book = new PinBook({ records: link!.records, mode: 'strict' });
  await book.ready();
  t.after(() => book.close());
  offer(book, 'up', { greet: 'Says hello', add: 'Adds' });
  await book.flush();

  // Whoever can write Redis pins the poisoned description, as if an operator had approved it.
  const attacker = new Redis(redis.url);
  attacker.on('error', () => undefined);
  t.after(() => attacker.quit().catch(() => undefined));
  const keys = await attacker.keys('forged-pins:*');
  const mapKey = keys.find((key) => key.endsWith(':pins'));
  assert.ok(mapKey, `the pin book's map is in Redis (${keys.join(', ')})`);
  const poisoned = fingerprint({ name: 'greet', description: 'Evil' });
  assert.ok('digest' in poisoned);
  const forged = {
    server: 'up',
    kind: 'tool',
    name: 'greet',
    state: 'pinned',
    pinned: { digest: poisoned.digest, definition: poisoned.definition, at: 0, by: 'alice' },
  };
  await attacker.hset(mapKey, fieldOf('up', 'tool', 'greet'), JSON.stringify(forged));

  const fresh = new PinBook({ records: link!.records, mode: 'strict' });
  await fresh.ready();
  t.after(() => fresh.close());
  assert.deepEqual(
    fresh.list('up').map((s) => s.name),
    ['add'],
    'the forged entry is not read',
  );
  assert.deepEqual(
    offer(fresh, 'up', { greet: 'Evil', add: 'Adds' }),
    ['greet'],
    'held, not pinned by the forgery',
  );
});
