/**
 * Cluster mode's security state, installed once at start before any gate, session or token is
 * used: the gate's unlocks, failures and lockouts in Redis, the gate handle key, and the OAuth
 * introspection cache. (The `requestState` key goes to `createServer`; see `sealingKey.ts`.)
 *
 * @module
 */
import { shareIntrospectionCache } from '../auth/introspection.ts';
import { shareHandleKey } from '../gate/handles.ts';
import { shareProcessGateStore } from '../gate/store.ts';
import { RedisGateStateStore } from './gateStore.ts';
import { RedisIntrospectionCache } from './introspectionCache.ts';
import type { ClusterLink } from './link.ts';
import { sharedSecret } from './sealingKey.ts';

export async function shareSecurityState(link: ClusterLink): Promise<void> {
  shareHandleKey(await sharedSecret(link, 'gate-handle-key'));
  shareProcessGateStore(new RedisGateStateStore(link));
  shareIntrospectionCache(new RedisIntrospectionCache(link));
}
