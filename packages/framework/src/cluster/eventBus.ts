/**
 * The SDK's `ServerEventBus` over Redis pub/sub, for change events that do not follow from the
 * plugin set (each replica's catalog changes by itself when it applies the set): a plugin's
 * `notifyResourceUpdated(uri)` on one replica reaches subscribers on every replica.
 *
 * `publish` delivers to this process's listeners at once (as the SDK's in-memory bus does) and
 * to the other replicas through Redis; an event that comes back from Redis is delivered only
 * on the replicas that did not publish it. {@link relayResourceUpdates} joins a catalog to it.
 *
 * @module
 */
import type { ServerEvent, ServerEventBus } from '@modelcontextprotocol/server';
import type { Catalog } from '../catalog/catalog.ts';
import { createLogger, type Logger } from '../logging/index.ts';
import type { ClusterLink } from './link.ts';

const CHANNEL = 'events';

export class RedisServerEventBus implements ServerEventBus {
  readonly #link: ClusterLink;
  readonly #listeners = new Set<(event: ServerEvent) => void>();
  readonly #logger: Logger;
  #stop: (() => void) | undefined;

  private constructor(link: ClusterLink, logger: Logger) {
    this.#link = link;
    this.#logger = logger;
  }

  static async create(link: ClusterLink, logger?: Logger): Promise<RedisServerEventBus> {
    const bus = new RedisServerEventBus(link, logger ?? createLogger('cluster'));
    bus.#stop = await link.subscribe(CHANNEL, (message) => {
      const { replica, event } = JSON.parse(message) as { replica: string; event: ServerEvent };
      if (replica !== link.replicaId) bus.#deliver(event);
    });
    return bus;
  }

  publish(event: ServerEvent): void {
    this.#deliver(event);
    const message = JSON.stringify({ replica: this.#link.replicaId, event });
    void this.#link.publish(CHANNEL, message).catch((error: unknown) => {
      this.#logger.warn(
        `cluster: a ${event.kind} event reached this replica's clients only (${String(error)})`,
      );
    });
  }

  subscribe(listener: (event: ServerEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  close(): void {
    this.#stop?.();
    this.#listeners.clear();
  }

  #deliver(event: ServerEvent): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch (error) {
        this.#logger.warn(`cluster: an event listener failed: ${String(error)}`);
      }
    }
  }
}

/**
 * Resource updates announced on this replica's catalog go to the bus; those of other replicas
 * come back into the catalog, which hands them to its subscribed sessions of both eras.
 * Returns a remover.
 */
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
