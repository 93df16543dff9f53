import { startRedisServer } from '@mcpbox/test-utils';
import { gateStateContract } from '../gate/state.contract.ts';
import { GateStateStore } from '../state/gate.ts';
import { clusterLinks } from './testing.ts';

let clusters = 0;

gateStateContract('redis', async (t) => {
  const redis = await startRedisServer(t);
  const [a, b] = await clusterLinks(t, redis.url, `gate${clusters++}`);
  return {
    a: new GateStateStore(a!.records),
    b: new GateStateStore(b!.records),
    kill: () => redis.stop(),
  };
});
