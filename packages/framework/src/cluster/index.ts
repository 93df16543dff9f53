/**
 * Cluster mode: replicas of one server share state through Redis (`cluster.redis_url` or
 * `MCP_REDIS_URL`). Nothing here loads ioredis until a cluster is configured
 * (`ClusterLink.connect` imports it).
 *
 * @module
 */
import type { Logger } from '../logging/index.ts';
import { ClusterLink, ClusterUnavailableError } from './link.ts';
import type { ClusterSettings } from './settings.ts';

export { RedisGateStateStore } from './gateStore.ts';
export { ClusterLink, type ClusterStatus, ClusterUnavailableError } from './link.ts';
export {
  REPORT_TTL_MS,
  type ReplicaReport,
  SharedPluginSet,
  type SharedPlugins,
} from './pluginSet.ts';
export { sharedSealingKey, sharedSecret } from './sealingKey.ts';
export { shareSecurityState } from './security.ts';
export {
  CLUSTER_FALLBACKS,
  type ClusterFallback,
  type ClusterSettings,
  redactRedisUrl,
  type WrittenClusterConfig,
} from './settings.ts';

/**
 * The link to the cluster's Redis, or `undefined` when no cluster is configured — or when Redis
 * is down at start and `fallback: local` allows running alone (said in the log).
 *
 * @throws ClusterUnavailableError when Redis is down at start and no fallback is configured.
 */
export async function openCluster(
  settings: ClusterSettings | undefined,
  options: { logger?: Logger; replicaId?: string } = {},
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
