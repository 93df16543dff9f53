/**
 * Verified OAuth introspection answers, by the SHA-256 of the token (never the token itself):
 * the verifier's own bounded memory first, then the stores this process shares with other
 * replicas (`processState().sharedCaches`: none alone, the cluster's signed Redis records in a
 * cluster), so a token checked through one replica is not introspected again by each of the
 * others. An entry is never used past its `until` nor past the token's own `exp`, whoever
 * cached it; a shared store that is away or holds a record that does not verify is a miss —
 * the authorization server is asked instead.
 *
 * @module
 */
import type { AuthInfo } from '@modelcontextprotocol/server';
import { MemoryRecordStore } from './memoryRecords.ts';
import { processState } from './process.ts';
import type { RecordStore } from './records.ts';

/** A cached answer: the verified identity (without the token), or "inactive". */
export type CachedIntrospection =
  | { kind: 'active'; info: Omit<AuthInfo, 'token'>; until: number }
  | { kind: 'inactive'; until: number };

export interface IntrospectionCacheOptions {
  /** Cap on answers kept in this process; the oldest go first. Default 10 000. */
  maxEntries?: number;
  /** Milliseconds since the epoch. Default `Date.now`. */
  clock?: () => number;
}

export class IntrospectionCache {
  readonly #options: IntrospectionCacheOptions;
  #local: MemoryRecordStore;

  constructor(options: IntrospectionCacheOptions = {}) {
    this.#options = options;
    this.#local = this.#fresh();
  }

  /** The live answer for `tokenHash` at `now`, from the nearest store that has one. */
  async get(tokenHash: string, now: number): Promise<CachedIntrospection | undefined> {
    const tiers = this.#tiers();
    for (const [index, tier] of tiers.entries()) {
      let entry: CachedIntrospection | undefined;
      try {
        entry = parse(await tier.get(keyOf(tokenHash)));
      } catch {
        continue; // away, or refused: ask the next, or the authorization server
      }
      if (entry === undefined || !live(entry, now)) continue;
      // Nearer stores keep it too, until it ends.
      for (const nearer of tiers.slice(0, index)) void this.#put(nearer, tokenHash, entry, now);
      return entry;
    }
    return undefined;
  }

  /** Keeps `entry` until its `until`, here and in the shared stores. */
  set(tokenHash: string, entry: CachedIntrospection, now: number): void {
    for (const tier of this.#tiers()) void this.#put(tier, tokenHash, entry, now);
  }

  /** Forgets this process's answers (shared stores expire theirs). */
  clear(): void {
    this.#local = this.#fresh();
  }

  #tiers(): RecordStore[] {
    return [this.#local, ...processState().sharedCaches];
  }

  async #put(tier: RecordStore, tokenHash: string, entry: CachedIntrospection, now: number) {
    const ttl = entry.until - now;
    if (ttl <= 0) return;
    // A shared store that is away only costs another introspection later.
    await tier.set(keyOf(tokenHash), JSON.stringify(entry), ttl).catch(() => undefined);
  }

  #fresh(): MemoryRecordStore {
    return new MemoryRecordStore({
      maxEntries: this.#options.maxEntries ?? 10_000,
      clock: this.#options.clock,
    });
  }
}

function keyOf(tokenHash: string): string {
  return `oauth:${tokenHash}`;
}

function parse(text: string | undefined): CachedIntrospection | undefined {
  return text === undefined ? undefined : (JSON.parse(text) as CachedIntrospection);
}

/** Never past the entry's end, nor past the token's own expiry. */
function live(entry: CachedIntrospection, now: number): boolean {
  if (entry.until <= now) return false;
  const expiresAt = entry.kind === 'active' ? entry.info.expiresAt : undefined;
  return expiresAt === undefined || expiresAt * 1000 > now;
}
