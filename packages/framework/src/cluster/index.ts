/**
 * Cluster mode: replicas of one server share state through Redis (`cluster.redis_url` or
 * `MCP_REDIS_URL`), every record signed with a key derived from `cluster.secret` (or
 * `MCP_CLUSTER_SECRET`). The states themselves are in `state/`; here is the link and its Redis
 * record store. Nothing here loads ioredis until a cluster is configured
 * (`ClusterLink.connect` imports it).
 *
 * @module
 */
export { relayResourceUpdates } from './eventBus.ts';
export { type ClusterMembership, joinCluster } from './join.ts';
export {
  ClusterConfigError,
  ClusterLink,
  type ClusterLinkOptions,
  type ClusterStatus,
  ClusterUnavailableError,
} from './link.ts';
export { openCluster } from './open.ts';
export { type RedisConnection, RedisRecordStore } from './redisRecords.ts';
export { shareSecurityState } from './security.ts';
export {
  CLUSTER_FALLBACKS,
  CLUSTER_SECRET_VARIABLE,
  type ClusterFallback,
  type ClusterSettings,
  redactRedisUrl,
  redisUrlRisk,
  type WrittenClusterConfig,
} from './settings.ts';
