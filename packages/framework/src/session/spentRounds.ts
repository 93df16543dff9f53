/**
 * Which 2026 input rounds have been answered. Every `requestState` the re-run rounds mint
 * (`inputRounds.ts`) names a random round id; the first retry that presents it spends it, and any
 * later one is refused. Without this a completed round could be sent again for as long as its
 * state is valid (15 minutes), re-running the handler with the same answers — "approve" once,
 * act twice.
 *
 * In memory by default; a cluster installs a shared store ({@link shareSpentRounds}), since a
 * retry may land on any replica.
 *
 * @module
 */

export interface SpentRounds {
  /** Marks `round` spent for `ttlMs`; false when it was spent already. */
  spend(round: string, ttlMs: number): Promise<boolean>;
  /** Un-spends `round`: its retry was refused before anything ran (a malformed answer). */
  release(round: string): Promise<void>;
}

/** Round ids kept at most in memory (about 100 bytes each). */
const MAX_ROUNDS = 100_000;

/**
 * This process's spent rounds, each kept until its state has expired. Past {@link MAX_ROUNDS}
 * the oldest go first: a flood of rounds can then make the oldest replayable again, which
 * beats refusing every retry once full.
 */
export class MemorySpentRounds implements SpentRounds {
  /** Round id → when it may be forgotten. One TTL for all, so insertion order is expiry order. */
  readonly #spent = new Map<string, number>();
  readonly #now: () => number;
  readonly #max: number;

  constructor(now: () => number = Date.now, max = MAX_ROUNDS) {
    this.#now = now;
    this.#max = max;
  }

  async spend(round: string, ttlMs: number): Promise<boolean> {
    const now = this.#now();
    const until = this.#spent.get(round);
    if (until !== undefined && until > now) return false;
    this.#spent.delete(round);
    for (const [id, expires] of this.#spent) {
      if (expires > now && this.#spent.size < this.#max) break;
      this.#spent.delete(id);
    }
    this.#spent.set(round, now + ttlMs);
    return true;
  }

  async release(round: string): Promise<void> {
    this.#spent.delete(round);
  }
}

let shared: SpentRounds | undefined;
let local: MemorySpentRounds | undefined;

/** Cluster mode: every server of this process spends rounds in `store`. */
export function shareSpentRounds(store: SpentRounds | undefined): void {
  shared = store;
}

/** The store rounds are spent in: the shared one, else this process's. */
export function spentRounds(): SpentRounds {
  if (shared !== undefined) return shared;
  local ??= new MemorySpentRounds();
  return local;
}
