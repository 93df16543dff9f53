/**
 * A catalog joined to the replicas' event bus (`state/events.ts`): resource updates announced
 * on this replica's catalog go to the bus; those of other replicas come back into the catalog,
 * which hands them to its subscribed sessions of both eras.
 *
 * @module
 */
import type { ServerEventBus } from '@modelcontextprotocol/server';
import type { Catalog } from '../catalog/catalog.ts';

/** Relays `catalog`'s resource updates to and from `bus`. Returns a remover. */
export function relayResourceUpdates(catalog: Catalog, bus: ServerEventBus): () => void {
  // Delivery is synchronous both ways: this flag keeps an event from going round again.
  let relaying = false;
  const stopCatalog = catalog.onResourceUpdated((uri) => {
    if (relaying) return;
    relaying = true;
    try {
      bus.publish({ kind: 'resource_updated', uri });
    } finally {
      relaying = false;
    }
  });
  const stopBus = bus.subscribe((event) => {
    if (relaying || event.kind !== 'resource_updated') return;
    relaying = true;
    try {
      catalog.resourceUpdated(event.uri);
    } finally {
      relaying = false;
    }
  });
  return () => {
    stopCatalog();
    stopBus();
  };
}
