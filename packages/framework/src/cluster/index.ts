/**
 * Cluster mode: replicas of one server share state through Redis (`cluster.redis_url` or
 * `MCP_REDIS_URL`). Nothing here loads ioredis until a cluster is configured
 * (`ClusterLink.connect` imports it).
 *
 * @module
 */
export { RedisServerEventBus, relayResourceUpdates } from './eventBus.ts';
export { RedisGateStateStore } from './gateStore.ts';
export { RedisIntrospectionCache } from './introspectionCache.ts';
export { type ClusterMembership, joinCluster } from './join.ts';
export { ClusterLink, type ClusterStatus, ClusterUnavailableError } from './link.ts';
export { openCluster } from './open.ts';
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
