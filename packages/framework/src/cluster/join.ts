/**
 * What a server program does to join its cluster, in one place for mcp-proxy, mcp-factory and
 * ipybox: connect (or fail clearly, or fall back alone when configured), share the security
 * state, get the cluster's `requestState` key, relay resource updates, and say in
 * `/health/ready` when Redis is away.
 *
 * @module
 */
import type { Catalog } from '../catalog/catalog.ts';
import type { Logger } from '../logging/index.ts';
import { RedisServerEventBus, relayResourceUpdates } from './eventBus.ts';
import type { ClusterLink } from './link.ts';
import { openCluster } from './open.ts';
import { sharedSealingKey } from './sealingKey.ts';
import { shareSecurityState } from './security.ts';
import type { ClusterSettings } from './settings.ts';

export interface ClusterMembership {
  readonly link: ClusterLink;
  /** For `createServer({ requestStateKey })`: an input round may land on any replica. */
  readonly requestStateKey: string;
  /** Relays the catalog's resource updates to and from the other replicas. */
  relay(catalog: Catalog): Promise<void>;
  /** Why this replica is not ready (Redis away), or undefined. */
  notReady(): string | undefined;
  close(): Promise<void>;
}

/**
 * Joins the cluster `settings` describe, before the program creates its server and gates;
 * `undefined` without a cluster (or alone under `fallback: local`).
 *
 * @throws ClusterUnavailableError when Redis is down at start and no fallback is configured.
 */
export async function joinCluster(
  settings: ClusterSettings | undefined,
  options: { logger?: Logger } = {},
): Promise<ClusterMembership | undefined> {
  const link = await openCluster(settings, options);
  if (!link) return undefined;
  let requestStateKey: string;
  try {
    await shareSecurityState(link);
    requestStateKey = await sharedSealingKey(link);
  } catch (error) {
    await link.close();
    throw error;
  }
  const stops: Array<() => void> = [];
  return {
    link,
    requestStateKey,
    async relay(catalog) {
      const bus = await RedisServerEventBus.create(link, options.logger);
      stops.push(relayResourceUpdates(catalog, bus), () => bus.close());
    },
    notReady() {
      const status = link.status();
      return status.connected ? undefined : (status.error ?? 'Redis unreachable');
    },
    async close() {
      for (const stop of stops.splice(0)) stop();
      await link.close();
    },
  };
}
