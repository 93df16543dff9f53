/**
 * Test helpers of cluster mode: links to a test cluster, as its replicas would have, and the
 * test clusters' secret. (Waiting for a condition is `waitFor` of `@mcpbox/test-utils`.)
 *
 * @module
 */
import { ClusterLink } from './link.ts';

/** The `cluster.secret` of test clusters (tests only; a real one comes from openssl rand). */
export const TEST_CLUSTER_SECRET = 'test-cluster-secret-0123456789abcdef';

/** `count` links to the cluster `name` on `redisUrl`, as `count` replicas; closed after `t`. */
export async function clusterLinks(
  t: { after(fn: () => unknown): void },
  redisUrl: string,
  name: string,
  count = 2,
): Promise<ClusterLink[]> {
  const settings = { redisUrl, name, fallback: 'none' as const, secret: TEST_CLUSTER_SECRET };
  const links = await Promise.all(
    Array.from({ length: count }, () => ClusterLink.connect(settings)),
  );
  t.after(() => Promise.all(links.map((link) => link.close())));
  return links;
}
