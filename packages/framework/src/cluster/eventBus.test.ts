/**
 * Resource updates across replicas through a real redis-server: a catalog's update on one
 * "replica" reaches the catalog of another exactly once, and never echoes back to its origin.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startRedisServer } from '../__fixtures__/redisServer.ts';
import { Catalog } from '../catalog/catalog.ts';
import { RedisServerEventBus, relayResourceUpdates } from './eventBus.ts';
import { ClusterLink } from './link.ts';
import { waitFor } from './testing.ts';

test('a resource update on one replica reaches the others once, and does not echo', async (t) => {
  const redis = await startRedisServer(t);
  const settings = { redisUrl: redis.url, name: 'events', fallback: 'none' as const };
  const replicas = await Promise.all(
    [0, 1, 2].map(async () => {
      const link = await ClusterLink.connect(settings);
      const bus = await RedisServerEventBus.create(link);
      const catalog = new Catalog();
      const seen: string[] = [];
      catalog.onResourceUpdated((uri) => seen.push(uri));
      const stop = relayResourceUpdates(catalog, bus);
      t.after(async () => {
        stop();
        bus.close();
        await link.close();
      });
      return { catalog, seen, bus };
    }),
  );
  const [a, b, c] = replicas as [(typeof replicas)[0], (typeof replicas)[0], (typeof replicas)[0]];

  a.catalog.resourceUpdated('memo://1');
  await waitFor(() => b.seen.length > 0 && c.seen.length > 0, 'the update on B and C');
  b.catalog.resourceUpdated('memo://2');
  await waitFor(() => a.seen.includes('memo://2') && c.seen.includes('memo://2'), 'memo://2');
  // A marker after both: once it has arrived everywhere, nothing else is in flight.
  c.catalog.resourceUpdated('memo://end');
  await waitFor(() => a.seen.includes('memo://end') && b.seen.includes('memo://end'), 'the marker');
  assert.deepEqual(a.seen, ['memo://1', 'memo://2', 'memo://end']);
  assert.deepEqual(b.seen, ['memo://1', 'memo://2', 'memo://end']);
  assert.deepEqual(c.seen, ['memo://1', 'memo://2', 'memo://end']);
});
