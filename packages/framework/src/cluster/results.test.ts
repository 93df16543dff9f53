/** The result store's contract across two replicas' links to a real redis-server. */
import { startRedisServer } from '@mcpbox/test-utils';
import { resultStoreContract } from '../results/store.contract.ts';
import { clusterLinks } from './testing.ts';

let clusters = 0;

resultStoreContract('redis', async (t) => {
  const redis = await startRedisServer(t);
  const [a, b] = await clusterLinks(t, redis.url, `results${clusters++}`);
  return { a: a!.records, b: b!.records };
});
