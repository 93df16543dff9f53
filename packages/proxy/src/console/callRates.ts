/**
 * Tool calls per time slot over the last minutes, for the console's charts: calls and errors
 * (outcome `error` or `rejected`) in slots of `slotMs`, the newest last.
 *
 * @module
 */
import type { TappedCall } from '@mcpbox/framework';

export interface RateSlot {
  /** Start of the slot, ms since the epoch. */
  start: number;
  calls: number;
  errors: number;
}

export class CallRates {
  readonly slotMs: number;
  readonly #slots: number;
  readonly #clock: () => number;
  readonly #counts = new Map<number, { calls: number; errors: number }>();

  constructor({
    slotMs = 10_000,
    slots = 60,
    clock = Date.now,
  }: { slotMs?: number; slots?: number; clock?: () => number } = {}) {
    this.slotMs = slotMs;
    this.#slots = slots;
    this.#clock = clock;
  }

  add(call: Pick<TappedCall, 'time' | 'outcome'>): void {
    const slot = Math.floor(call.time / this.slotMs);
    const count = this.#counts.get(slot) ?? { calls: 0, errors: 0 };
    count.calls += 1;
    if (call.outcome !== 'ok') count.errors += 1;
    this.#counts.set(slot, count);
    const oldest = Math.floor(this.#clock() / this.slotMs) - this.#slots;
    for (const key of this.#counts.keys()) if (key <= oldest) this.#counts.delete(key);
  }

  /** The last `slots` slots, oldest first, empty ones included. */
  series(): RateSlot[] {
    const newest = Math.floor(this.#clock() / this.slotMs);
    const series: RateSlot[] = [];
    for (let slot = newest - this.#slots + 1; slot <= newest; slot++) {
      const count = this.#counts.get(slot) ?? { calls: 0, errors: 0 };
      series.push({ start: slot * this.slotMs, ...count });
    }
    return series;
  }
}
