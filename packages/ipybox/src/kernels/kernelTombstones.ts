/**
 * What is left of closed kernels: enough to tell a caller who comes back why its state is gone
 * ("closed after 1800 s idle") instead of running its cell in a fresh kernel where its names
 * would fail with a bare `NameError`. Bounded: the oldest go first.
 *
 * @module
 */

export interface Tombstone {
  /** SHA-256 of the handle's secret: only the handle's holder learns what became of it. */
  digest: Buffer;
  owner: string | undefined;
  /** Why it closed, as the end of a sentence: "after 1800 s idle (kernel_idle_timeout)". */
  reason: string;
}

export class Tombstones<K, V> {
  readonly #max: number;
  readonly #entries = new Map<K, V>();

  constructor(max: number) {
    this.#max = max;
  }

  add(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    while (this.#entries.size > this.#max) {
      const oldest = this.#entries.keys().next().value as K;
      this.#entries.delete(oldest);
    }
  }

  get(key: K): V | undefined {
    return this.#entries.get(key);
  }

  /** Removes and returns the entry: a default kernel's loss is told once. */
  take(key: K): V | undefined {
    const value = this.#entries.get(key);
    this.#entries.delete(key);
    return value;
  }
}
