/**
 * What a server program does to join its cluster, in one place for mcp-proxy, mcp-factory and
 * ipybox: connect (or fail clearly, or fall back alone when configured), share the security
 * state, take the cluster's `requestState` key (derived from `cluster.secret`, never in Redis),
 * relay resource updates, and say in `/health/ready` when Redis is away.
 *
 * @module
 */
import type { Catalog } from '../catalog/catalog.ts';
import type { Logger } from '../logging/index.ts';
import { SharedEventBus } from '../state/events.ts';
import { relayResourceUpdates } from './eventBus.ts';
import type { ClusterLink } from './link.ts';
import { openCluster } from './open.ts';
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
 * @throws ClusterConfigError when no usable `cluster.secret` (or `MCP_CLUSTER_SECRET`) is set.
 * @throws ClusterUnavailableError when Redis is down at start and no fallback is configured.
 */
export async function joinCluster(
  settings: ClusterSettings | undefined,
  options: { logger?: Logger; env?: Readonly<Record<string, string | undefined>> } = {},
): Promise<ClusterMembership | undefined> {
  const link = await openCluster(settings, options);
  if (!link) return undefined;
  const stops: Array<() => void> = [shareSecurityState(link)];
  const requestStateKey = link.keys.key('request-state').toString('base64url');
  return {
    link,
    requestStateKey,
    async relay(catalog) {
      const bus = await SharedEventBus.create(link.records, {
        origin: link.replicaId,
        logger: options.logger,
      });
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
