/**
 * Counted slots with leases, shared over a {@link RecordStore}: at most `max` holders of a key at
 * once (the calls a principal has running, for `limits.*.concurrent`), alike in one process and
 * across replicas (the cluster's signed Redis records).
 *
 * A slot is a lease with an expiry, not a bare counter: a holder renews its lease while it runs
 * (the limiter every `leaseMs / 3`) and gives it back when done. A replica that dies holding
 * slots cannot give them back — its leases simply lapse, at most `leaseMs` later, and the slots
 * are free again. Each acquire and release is one atomic `update` of the key's record, so two
 * replicas racing for the last slot get it once.
 *
 * @module
 */
import { nodeCrypto } from '../lazy.ts';
import type { RecordStore } from './records.ts';

/** A key's record: lease id → expiry (ms since the epoch). */
type Leases = Record<string, number>;

function live(text: string | undefined, now: number): Leases {
  const leases: Leases = {};
  if (text === undefined) return leases;
  let stored: unknown;
  try {
    stored = JSON.parse(text);
  } catch {
    return leases;
  }
  for (const [id, expiry] of Object.entries((stored ?? {}) as Record<string, unknown>)) {
    if (typeof expiry === 'number' && expiry > now) leases[id] = expiry;
  }
  return leases;
}

export class LeaseStore {
  readonly #records: RecordStore;
  readonly #prefix: string;

  /** `prefix`: where the keys' records live (`<prefix>:<key>`). */
  constructor(records: RecordStore, prefix: string) {
    this.#records = records;
    this.#prefix = prefix;
  }

  /**
   * Takes one of the `max` slots of `key` until `now + leaseMs`: the lease's id, or undefined
   * when all are held.
   */
  async acquire(
    key: string,
    max: number,
    now: number,
    leaseMs: number,
  ): Promise<string | undefined> {
    // randomUUID draws from a cached pool: ~3 µs, where randomBytes took ~55 µs per call here.
    const id = nodeCrypto().randomUUID();
    return this.#records.update(
      this.#key(key),
      (text) => {
        const leases = live(text, now);
        if (Object.keys(leases).length >= max) return { result: undefined };
        leases[id] = now + leaseMs;
        return { value: JSON.stringify(leases), result: id };
      },
      leaseMs,
    );
  }

  /** Extends lease `id` of `key` to `now + leaseMs`; false when it had lapsed (or was never). */
  async renew(key: string, id: string, now: number, leaseMs: number): Promise<boolean> {
    return this.#records.update(
      this.#key(key),
      (text) => {
        const leases = live(text, now);
        if (leases[id] === undefined) return { result: false };
        leases[id] = now + leaseMs;
        return { value: JSON.stringify(leases), result: true };
      },
      leaseMs,
    );
  }

  /** Gives lease `id` of `key` back. */
  async release(key: string, id: string, now: number, leaseMs: number): Promise<void> {
    await this.#records.update(
      this.#key(key),
      (text) => {
        const leases = live(text, now);
        if (leases[id] === undefined) return { result: undefined };
        delete leases[id];
        return { value: JSON.stringify(leases), result: undefined };
      },
      leaseMs,
    );
  }

  /** How many slots of `key` are held at `now`. */
  async held(key: string, now: number): Promise<number> {
    return Object.keys(live(await this.#records.get(this.#key(key)), now)).length;
  }

  #key(key: string): string {
    return `${this.#prefix}:${key}`;
  }
}
