/**
 * Opening the cluster link as a program's start-up wants it: nothing without a cluster, a clear
 * error when Redis is down, or running alone when `fallback: local` says so.
 *
 * @module
 */
import { ClusterLink, type ClusterLinkOptions, ClusterUnavailableError } from './link.ts';
import type { ClusterSettings } from './settings.ts';

/**
 * The link to the cluster's Redis, or `undefined` when no cluster is configured — or when Redis
 * is down at start and `fallback: local` allows running alone (said in the log).
 *
 * @throws ClusterUnavailableError when Redis is down at start and no fallback is configured.
 */
export async function openCluster(
  settings: ClusterSettings | undefined,
  options: ClusterLinkOptions = {},
): Promise<ClusterLink | undefined> {
  if (!settings) return undefined;
  try {
    const link = await ClusterLink.connect(settings, options);
    options.logger?.info(
      `cluster '${settings.name}': replica ${link.replicaId} sharing state through Redis`,
    );
    return link;
  } catch (error) {
    if (!(error instanceof ClusterUnavailableError) || settings.fallback !== 'local') throw error;
    options.logger?.warn(
      `${error.message.split(' — ')[0]}; cluster.fallback is local: serving as a single process, nothing shared with other replicas`,
    );
    return undefined;
  }
}
