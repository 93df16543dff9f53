/**
 * Secrets the replicas of a cluster must share, created by the first replica to start (SET NX)
 * and read by the rest: the key sealing 2026-07-28 `requestState` (an `input_required` round
 * trip may come back through the load balancer to another replica, which must open what the
 * first one sealed) and the key signing gate unlock handles. They live in Redis like the rest
 * of the cluster's security state, so Redis must be private to the replicas (bind, password,
 * TLS).
 *
 * @module
 */
import { nodeCrypto } from '../lazy.ts';
import type { ClusterLink } from './link.ts';

/** The cluster's secret `name` (32 random bytes, base64url), created if it does not exist. */
export async function sharedSecret(link: ClusterLink, name: string): Promise<string> {
  const key = link.key('security', name);
  await link.redis.set(key, nodeCrypto().randomBytes(32).toString('base64url'), 'NX');
  const value = await link.redis.get(key);
  if (!value) throw new Error(`the cluster's ${name} vanished from Redis right after it was set`);
  return value;
}

export function sharedSealingKey(link: ClusterLink): Promise<string> {
  return sharedSecret(link, 'request-state-key');
}
