/**
 * How a cluster's replicas compare with the shared plugin set: the view cluster sync computes and
 * the plugin manager hands to `GET /proxy/status` and `proxy__status`, and its text for the
 * latter. Apart from both, so the manager that exposes it need not import the sync that fills it.
 *
 * @module
 */
import type { ReplicaReport } from '@mcpbox/framework';

/** How the replicas compare with the shared set, for `GET /proxy/status` and `proxy__status`. */
export interface ClusterView {
  cluster: string;
  /** This replica. */
  replica: string;
  redis: 'connected' | 'unreachable';
  error?: string;
  /** The set every replica should have. */
  shared: string[];
  replicas: Array<ReplicaReport & { missing: string[]; extra: string[] }>;
  /** Some live replica lacks a shared plugin, has one that is not shared, or reports an error. */
  diverged: boolean;
}

/**
 * `proxy__status`'s cluster lines: which replica answered, the shared plugin set, and every
 * replica that differs from it (missing, extra, or a plugin that failed there) — divergence is
 * said, never silent.
 */
export function clusterText(view: ClusterView): string {
  const lines = [`Cluster:   ${view.cluster} (this replica: ${view.replica})`];
  if (view.redis !== 'connected') {
    lines.push(`Redis:     unreachable — ${view.error ?? 'reconnecting'}`);
    return lines.join('\n');
  }
  lines.push(
    `Shared:    ${view.shared.join(', ') || '(no plugins)'}`,
    `Replicas:  ${view.replicas.length} live, ${view.diverged ? 'DIVERGED' : 'in line'}`,
  );
  for (const replica of view.replicas) {
    const problems = [
      replica.missing.length ? `missing ${replica.missing.join(', ')}` : '',
      replica.extra.length ? `not shared ${replica.extra.join(', ')}` : '',
      ...Object.entries(replica.errors).map(([plugin, error]) => `${plugin} failed: ${error}`),
    ].filter(Boolean);
    if (problems.length) lines.push(`  ${replica.replica}: ${problems.join('; ')}`);
  }
  return lines.join('\n');
}
