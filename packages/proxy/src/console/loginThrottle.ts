/**
 * Back-off for the console's log-in form, per client address: after {@link FREE_FAILURES}
 * wrong tokens in a row the address is locked out, and each further wrong token locks it for
 * twice as long as the last (5 s, 10 s, 20 s … up to {@link MAX_LOCK_MS}). While locked, a
 * log-in is answered 429 with `Retry-After` and the token is not even compared, so guessing
 * soon runs at a few tries per quarter hour. A right token clears the address's count.
 *
 * @module
 */

/** Wrong tokens in a row an address may send before it waits. */
export const FREE_FAILURES = 5;
const FIRST_LOCK_MS = 5000;
const MAX_LOCK_MS = 15 * 60 * 1000;
/** An address whose last failure is older than this starts again from nothing. */
const FORGET_MS = 60 * 60 * 1000;
/** Addresses tracked at most; the oldest go first. */
const MAX_ADDRESSES = 10_000;

interface Failures {
  count: number;
  last: number;
  lockedUntil: number;
}

export class LoginThrottle {
  readonly #failures = new Map<string, Failures>();
  readonly #clock: () => number;

  constructor(clock: () => number = Date.now) {
    this.#clock = clock;
  }

  /** Milliseconds `address` must still wait before its next try; 0 when it may try now. */
  waitMs(address: string): number {
    const entry = this.#live(address);
    return entry ? Math.max(0, entry.lockedUntil - this.#clock()) : 0;
  }

  /** Counts a wrong token from `address`, locking it out once past the free failures. */
  failed(address: string): void {
    const now = this.#clock();
    const entry = this.#live(address) ?? { count: 0, last: now, lockedUntil: 0 };
    entry.count += 1;
    entry.last = now;
    const over = entry.count - FREE_FAILURES;
    if (over >= 0) entry.lockedUntil = now + Math.min(FIRST_LOCK_MS * 2 ** over, MAX_LOCK_MS);
    this.#failures.delete(address);
    this.#failures.set(address, entry);
    if (this.#failures.size > MAX_ADDRESSES) {
      this.#failures.delete(this.#failures.keys().next().value as string);
    }
  }

  /** A right token from `address`: its count starts again. */
  succeeded(address: string): void {
    this.#failures.delete(address);
  }

  #live(address: string): Failures | undefined {
    const entry = this.#failures.get(address);
    if (entry && this.#clock() - entry.last > FORGET_MS && entry.lockedUntil <= this.#clock()) {
      this.#failures.delete(address);
      return undefined;
    }
    return entry;
  }
}
