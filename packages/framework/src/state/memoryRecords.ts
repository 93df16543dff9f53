/**
 * {@link RecordStore} in this process's memory: the default for every state, and the store of a
 * server that runs alone. Every operation takes effect when it is called (the promise only
 * reports it), so a decision made through it cannot race another in the same process. Messages
 * are delivered on a later microtask, as Redis delivers them after the publish returns.
 *
 * @module
 */
import type { RecordChange, RecordStore, StateScope } from './records.ts';

interface Slot {
  value: string | Map<string, string>;
  /** Milliseconds since the epoch; undefined: never. */
  expiresAt: number | undefined;
}

export interface MemoryRecordStoreOptions {
  /** Milliseconds since the epoch, for lifetimes. Default `Date.now`. */
  clock?: () => number;
  /**
   * Cap on records (a cache's bound): when full, expired records go first, then the oldest
   * written. Default: no cap (state that protects callers must never be evicted).
   */
  maxEntries?: number;
}

export class MemoryRecordStore implements RecordStore {
  readonly scope: StateScope = 'process';
  readonly #slots = new Map<string, Slot>();
  readonly #channels = new Map<string, Set<(message: string) => void>>();
  readonly #clock: () => number;
  readonly #maxEntries: number;

  constructor(options: MemoryRecordStoreOptions = {}) {
    this.#clock = options.clock ?? Date.now;
    this.#maxEntries = options.maxEntries ?? Number.POSITIVE_INFINITY;
  }

  async get(key: string): Promise<string | undefined> {
    const value = this.#live(key)?.value;
    return typeof value === 'string' ? value : undefined;
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    this.#write(key, value, ttlMs);
  }

  async delete(key: string): Promise<void> {
    this.#slots.delete(key);
  }

  async update<T>(
    key: string,
    change: (current: string | undefined) => RecordChange<T>,
    ttlMs?: number,
  ): Promise<T> {
    const current = this.#live(key)?.value;
    const decided = change(typeof current === 'string' ? current : undefined);
    if (decided.value !== undefined) this.#write(key, decided.value, ttlMs);
    return decided.result;
  }

  async entries(key: string): Promise<Map<string, string>> {
    const value = this.#live(key)?.value;
    return value instanceof Map ? new Map(value) : new Map();
  }

  async setEntry(key: string, field: string, value: string, ttlMs?: number): Promise<void> {
    const slot = this.#live(key);
    const map = slot?.value instanceof Map ? slot.value : new Map<string, string>();
    map.set(field, value);
    // Like Redis: a map keeps its lifetime unless this write gives a new one.
    this.#write(key, map, ttlMs, ttlMs === undefined ? slot?.expiresAt : undefined);
  }

  async deleteEntry(key: string, field: string): Promise<void> {
    const value = this.#live(key)?.value;
    if (!(value instanceof Map)) return;
    value.delete(field);
    if (value.size === 0) this.#slots.delete(key);
  }

  async publish(channel: string, message: string): Promise<void> {
    const listeners = [...(this.#channels.get(channel) ?? [])];
    queueMicrotask(() => {
      for (const listener of listeners) listener(message);
    });
  }

  async subscribe(channel: string, listener: (message: string) => void): Promise<() => void> {
    let listeners = this.#channels.get(channel);
    if (!listeners) {
      listeners = new Set();
      this.#channels.set(channel, listeners);
    }
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }

  #live(key: string): Slot | undefined {
    const slot = this.#slots.get(key);
    if (slot?.expiresAt !== undefined && slot.expiresAt <= this.#clock()) {
      this.#slots.delete(key);
      return undefined;
    }
    return slot;
  }

  #write(key: string, value: Slot['value'], ttlMs: number | undefined, keepExpiry?: number): void {
    const expiresAt = ttlMs === undefined ? keepExpiry : this.#clock() + ttlMs;
    // Re-inserted, so Map order is the order of the last writes (the oldest goes first).
    this.#slots.delete(key);
    if (this.#slots.size >= this.#maxEntries) this.#evict();
    this.#slots.set(key, { value, expiresAt });
  }

  #evict(): void {
    const now = this.#clock();
    for (const [key, slot] of this.#slots) {
      if (slot.expiresAt !== undefined && slot.expiresAt <= now) this.#slots.delete(key);
    }
    for (const key of this.#slots.keys()) {
      if (this.#slots.size < this.#maxEntries) break;
      this.#slots.delete(key);
    }
  }
}
