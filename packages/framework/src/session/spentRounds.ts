/**
 * Which 2026 input rounds have been answered. Every `requestState` the re-run rounds mint
 * (`inputRounds.ts`) names a random round id; the first retry that presents it spends it, and any
 * later one is refused. Without this a completed round could be sent again for as long as its
 * state is valid (15 minutes), re-running the handler with the same answers — "approve" once,
 * act twice.
 *
 * A round is marked in the stores other replicas read (`processState().sharedCaches`: none
 * alone, the cluster's signed Redis records in a cluster), since a retry may land on any
 * replica, and in this process's bounded memory. A shared store that is away fails the spend:
 * better to refuse a retry than to run a round twice.
 *
 * @module
 */
import { MemoryRecordStore } from '../state/memoryRecords.ts';
import { processState } from '../state/process.ts';
import type { RecordStore } from '../state/records.ts';

/** Round ids kept at most in this process's memory (about 100 bytes each). */
const MAX_ROUNDS = 100_000;

export interface SpentRoundsOptions {
  /** Milliseconds since the epoch. Default `Date.now`. */
  clock?: () => number;
  /**
   * Rounds this process remembers; past it, expired ones go first, then the oldest: a flood of
   * rounds can make the oldest replayable again (alone), which beats refusing every retry.
   * Default 100 000.
   */
  maxRounds?: number;
}

export class SpentRounds {
  readonly #local: MemoryRecordStore;

  constructor(options: SpentRoundsOptions = {}) {
    this.#local = new MemoryRecordStore({
      clock: options.clock,
      maxEntries: options.maxRounds ?? MAX_ROUNDS,
    });
  }

  /** Marks `round` spent for `ttlMs`; false when it was spent already. */
  async spend(round: string, ttlMs: number): Promise<boolean> {
    // Shared stores first: if one is away, nothing was marked here and the client may retry.
    for (const store of this.#stores()) {
      const fresh = await store.update(
        keyOf(round),
        (current) => (current === undefined ? { value: '1', result: true } : { result: false }),
        ttlMs,
      );
      if (!fresh) return false;
    }
    return true;
  }

  /** Un-spends `round`: its retry was refused before anything ran (a malformed answer). */
  async release(round: string): Promise<void> {
    await Promise.all(this.#stores().map((store) => store.delete(keyOf(round))));
  }

  #stores(): RecordStore[] {
    return [...processState().sharedCaches, this.#local];
  }
}

function keyOf(round: string): string {
  return `round:${round}`;
}

let processRounds: SpentRounds | undefined;

/** This process's spent rounds. */
export function spentRounds(): SpentRounds {
  processRounds ??= new SpentRounds();
  return processRounds;
}
