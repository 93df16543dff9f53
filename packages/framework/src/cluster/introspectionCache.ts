/**
 * The OAuth introspection cache shared by the replicas: one Redis string per token hash, expiring
 * with the entry. Tokens themselves never reach Redis (entries are stored without them).
 *
 * @module
 */
import type { SharedIntrospectionCache, SharedIntrospectionEntry } from '../auth/introspection.ts';
import type { ClusterLink } from './link.ts';

export class RedisIntrospectionCache implements SharedIntrospectionCache {
  readonly #link: ClusterLink;

  constructor(link: ClusterLink) {
    this.#link = link;
  }

  async get(tokenHash: string): Promise<SharedIntrospectionEntry | undefined> {
    const value = await this.#link.redis.get(this.#key(tokenHash));
    return value ? (JSON.parse(value) as SharedIntrospectionEntry) : undefined;
  }

  async set(tokenHash: string, entry: SharedIntrospectionEntry, ttlMs: number): Promise<void> {
    await this.#link.redis.set(this.#key(tokenHash), JSON.stringify(entry), 'PX', Math.ceil(ttlMs));
  }

  #key(tokenHash: string): string {
    return this.#link.key('oauth', tokenHash);
  }
}
