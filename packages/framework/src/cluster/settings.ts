/**
 * The `cluster:` config mapping (or `MCP_REDIS_URL`): where the replicas' shared Redis is, which
 * cluster this replica belongs to (the key prefix, so several clusters can share one Redis), and
 * what to do when Redis cannot be reached at start.
 *
 * @module
 */

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
}

export interface ClusterSettings {
  redisUrl: string;
  name: string;
  fallback: ClusterFallback;
}

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
