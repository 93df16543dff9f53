import { startRedisServer } from '@mcpbox/test-utils';
import { leasesContract } from '../state/leases.contract.ts';
import { clusterLinks } from './testing.ts';

let clusters = 0;

leasesContract('redis', async (t) => {
  const redis = await startRedisServer(t);
  const [a, b] = await clusterLinks(t, redis.url, `leases${clusters++}`);
  return { a: a!.records, b: b!.records };
});
