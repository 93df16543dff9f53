/**
 * Events across replicas through a real redis-server: the event bus contract, and catalogs
 * joined to it (`relayResourceUpdates`) exchanging resource updates once, without echo.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startRedisServer, waitFor } from '@mcpbox/test-utils';
import { Catalog } from '../catalog/catalog.ts';
import { eventBusContract } from '../state/events.contract.ts';
import { SharedEventBus } from '../state/events.ts';
import { relayResourceUpdates } from './eventBus.ts';
import { clusterLinks } from './testing.ts';

eventBusContract('redis', async (t) => {
  const redis = await startRedisServer(t);
  return (await clusterLinks(t, redis.url, 'events', 3)).map((link) => link.records);
});

test("a resource update on one replica's catalog reaches the other's once, and does not echo", async (t) => {
  const redis = await startRedisServer(t);
  const replicas = await Promise.all(
    (await clusterLinks(t, redis.url, 'relay')).map(async (link) => {
      const bus = await SharedEventBus.create(link.records, { origin: link.replicaId });
      const catalog = new Catalog();
      const seen: string[] = [];
      catalog.onResourceUpdated((uri) => seen.push(uri));
      const stop = relayResourceUpdates(catalog, bus);
      t.after(() => {
        stop();
        bus.close();
      });
      return { catalog, seen };
    }),
  );
  const [a, b] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
  a.catalog.resourceUpdated('memo://1');
  b.catalog.resourceUpdated('memo://end');
  await waitFor(() => a.seen.includes('memo://end') && b.seen.includes('memo://1'), 'both');
  assert.deepEqual(a.seen, ['memo://1', 'memo://end']);
  assert.deepEqual(b.seen, ['memo://end', 'memo://1']);
});
