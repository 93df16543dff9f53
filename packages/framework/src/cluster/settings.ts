/**
 * The `cluster:` config mapping (or `MCP_REDIS_URL`): where the replicas' shared Redis is, which
 * cluster this replica belongs to (the key prefix, so several clusters can share one Redis),
 * what to do when Redis cannot be reached at start, and the secret every replica shares
 * (`cluster.secret` or `MCP_CLUSTER_SECRET`): the cluster's records are signed and its keys
 * derived with it, so it must never be in Redis.
 *
 * @module
 */
import { isLoopbackHost } from '../http/loopback.ts';

export const CLUSTER_FALLBACKS = ['none', 'local'] as const;
export type ClusterFallback = (typeof CLUSTER_FALLBACKS)[number];

/** What `cluster:` may say; a bare string is the Redis URL. */
export interface WrittenClusterConfig {
  /** `redis://[user:password@]host:port[/db]` or `rediss://…` (TLS). */
  redis_url: string;
  /** Key prefix and channel namespace of this cluster. Default `mcpbox`. */
  name?: string;
  /**
   * `local`: when Redis is down at start, serve as a single process (logged); default `none`:
   * refuse to start, because replicas that silently do not share state diverge.
   */
  fallback?: ClusterFallback;
  /**
   * The same random value (32 characters or more) on every replica; default the environment's
   * `MCP_CLUSTER_SECRET`. Required: without it a replica refuses to join.
   */
  secret?: string;
}

export interface ClusterSettings {
  redisUrl: string;
  name: string;
  fallback: ClusterFallback;
  /** Absent: `MCP_CLUSTER_SECRET` is read where the cluster is joined. */
  secret?: string;
}

/** Where the secret comes from when `cluster.secret` is not written. */
export const CLUSTER_SECRET_VARIABLE = 'MCP_CLUSTER_SECRET';

/** The URL without its password, for log lines and error messages. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable Redis URL)';
  }
}

/**
 * Why a Redis URL deserves a warning, or undefined: without a password outside loopback,
 * anyone who reaches the port can read the cluster's state and delete it (resetting lockouts
 * and unlocks); they cannot forge it, as every record is signed.
 */
export function redisUrlRisk(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.password !== '' || isLoopbackHost(parsed.hostname)) return undefined;
  return (
    `cluster: Redis at ${redactRedisUrl(url)} has no password and is not on loopback: whoever ` +
    "reaches it can read the cluster's shared state and delete it (resetting gate lockouts). " +
    'Set a password (redis://:password@host:port) and prefer TLS (rediss://)'
  );
}
