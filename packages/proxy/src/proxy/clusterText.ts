/**
 * `proxy__status`'s cluster lines: which replica answered, the shared plugin set, and every
 * replica that differs from it (missing, extra, or a plugin that failed there) — divergence is
 * said, never silent.
 *
 * @module
 */
import type { ClusterView } from './clusterSync.ts';

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
