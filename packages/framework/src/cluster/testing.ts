/**
 * Test helpers of cluster mode: links to a test cluster, as its replicas would have. (The test
 * clusters' secret and `waitFor` are in `@mcpbox/test-utils`.)
 *
 * @module
 */
import { TEST_CLUSTER_SECRET } from '@mcpbox/test-utils';
import { ClusterLink } from './link.ts';

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
