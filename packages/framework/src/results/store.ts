/**
 * Stored tool results, over the process's {@link RecordStore}: this process's memory alone, the
 * cluster's signed Redis records across replicas, so any replica serves a handle.
 *
 * A result is two records: its body as written (`results:body:<id>`, the text itself, so a stored
 * result holds about its own size) and a small description (`results:meta:<id>`: owner, size,
 * expiry), which outlives the body by {@link RETAIN_MS} so a late read is told "expired at …"
 * rather than "unknown". Ids are 128 random bits. Every read names its caller and is refused,
 * with the unknown handle's own words, when the caller is not the owner: a handle cannot be used
 * or probed by anyone else.
 *
 * Bounds: each caller's results, and all of them, are listed in index maps (id → size, last
 * read); over the caller's budget or the total one, the least recently read go first (LRU). Two
 * replicas storing at the same moment may both overshoot a budget by one result until the next
 * store evicts.
 *
 * @module
 */

import { nodeCrypto } from '../lazy.ts';
import type { RecordStore } from '../state/records.ts';

/** How long a description outlives its body, to answer "expired at". */
const RETAIN_MS = 24 * 60 * 60 * 1000;
const ID = /^[A-Za-z0-9_-]{22}$/;
const ALL = 'results:all';

export type ResultKind = 'json' | 'text';

export interface StoredResult {
  readonly id: string;
  readonly owner: string;
  readonly tool: string;
  readonly kind: ResultKind;
  /** Bytes (UTF-8) of the stored body. */
  readonly bytes: number;
  /** Bytes of the result as the tool returned it (more than `bytes` when truncated). */
  readonly originalBytes: number;
  readonly createdAt: number;
  readonly expiresAt: number;
  /** Why and where the body was cut, when it was over the store's cap. */
  readonly truncated?: string;
  /** When the body was dropped to keep within a budget. */
  readonly evictedAt?: number;
}

export interface ResultStoreLimits {
  ttlMs: number;
  perCallerBytes: number;
  totalBytes: number;
}

/** A read the store refused; the message says why and what to do. */
export class ResultUnavailableError extends Error {
  readonly code = 'RESULT_UNAVAILABLE';
  constructor(message: string) {
    super(message);
    this.name = 'ResultUnavailableError';
  }
}

interface IndexEntry {
  bytes: number;
  usedAt: number;
  expiresAt: number;
  owner: string;
}

const iso = (ms: number) => new Date(ms).toISOString();

export class ResultStore {
  readonly #records: RecordStore;
  readonly #limits: ResultStoreLimits;
  readonly #clock: () => number;

  constructor(records: RecordStore, limits: ResultStoreLimits, clock: () => number = Date.now) {
    this.#records = records;
    this.#limits = limits;
    this.#clock = clock;
  }

  /** Keeps `body` for `owner`; evicts the least recently read over a budget. */
  async put(
    owner: string,
    body: {
      tool: string;
      kind: ResultKind;
      text: string;
      originalBytes: number;
      truncated?: string;
    },
  ): Promise<StoredResult> {
    const now = this.#clock();
    const id = nodeCrypto().randomBytes(16).toString('base64url');
    const bytes = Buffer.byteLength(body.text);
    const meta: StoredResult = {
      id,
      owner,
      tool: body.tool,
      kind: body.kind,
      bytes,
      originalBytes: body.originalBytes,
      createdAt: now,
      expiresAt: now + this.#limits.ttlMs,
      ...(body.truncated ? { truncated: body.truncated } : {}),
    };
    const { ttlMs } = this.#limits;
    await this.#records.set(`results:body:${id}`, body.text, ttlMs);
    await this.#records.set(`results:meta:${id}`, JSON.stringify(meta), ttlMs + RETAIN_MS);
    const entry = JSON.stringify({ bytes, usedAt: now, expiresAt: meta.expiresAt, owner });
    await this.#records.setEntry(ownerIndex(owner), id, entry, ttlMs + RETAIN_MS);
    await this.#records.setEntry(ALL, id, entry);
    await this.#evictOver(ownerIndex(owner), this.#limits.perCallerBytes, id);
    await this.#evictOver(ALL, this.#limits.totalBytes, id);
    return meta;
  }

  /**
   * The description and body of `id` for `owner`. The same refusal for an id that is malformed,
   * unknown or another caller's; the owner alone learns it expired or was evicted, and when.
   */
  async open(owner: string, id: string): Promise<{ meta: StoredResult; text: string }> {
    const unknown = new ResultUnavailableError(
      `No stored result "${id}" for this caller: the handle is unknown, or belongs to another caller (a stored result is readable only by whoever made the call). Call the tool again for a new one.`,
    );
    if (!ID.test(id)) throw unknown;
    const raw = await this.#records.get(`results:meta:${id}`);
    const meta = raw === undefined ? undefined : (JSON.parse(raw) as StoredResult);
    if (meta?.owner !== owner) throw unknown;
    const now = this.#clock();
    if (meta.evictedAt !== undefined) {
      throw new ResultUnavailableError(
        `The stored result "${id}" was dropped at ${iso(meta.evictedAt)} to keep within the result store's budget (the least recently read go first). Call the tool again.`,
      );
    }
    const text = now < meta.expiresAt ? await this.#records.get(`results:body:${id}`) : undefined;
    if (text === undefined) {
      throw new ResultUnavailableError(
        `The stored result "${id}" expired at ${iso(meta.expiresAt)} (results are kept ${Math.round(this.#limits.ttlMs / 1000)} s, result_preview.ttl). Call the tool again.`,
      );
    }
    const entry = JSON.stringify({
      bytes: meta.bytes,
      usedAt: now,
      expiresAt: meta.expiresAt,
      owner,
    });
    await this.#records.setEntry(ownerIndex(owner), id, entry, this.#limits.ttlMs + RETAIN_MS);
    await this.#records.setEntry(ALL, id, entry);
    return { meta, text };
  }

  /** Drops the least recently read results of index `key` until it holds `budget` bytes. */
  async #evictOver(key: string, budget: number, keep: string): Promise<void> {
    const now = this.#clock();
    const live: [string, IndexEntry][] = [];
    let held = 0;
    for (const [id, raw] of await this.#records.entries(key)) {
      const entry = JSON.parse(raw) as IndexEntry;
      if (entry.expiresAt <= now) {
        await this.#records.deleteEntry(key, id);
        continue;
      }
      live.push([id, entry]);
      held += entry.bytes;
    }
    live.sort((a, b) => a[1].usedAt - b[1].usedAt);
    for (const [id, entry] of live) {
      if (held <= budget) return;
      if (id === keep) continue;
      await this.#evict(id, entry.owner, now);
      held -= entry.bytes;
    }
  }

  async #evict(id: string, owner: string, now: number): Promise<void> {
    await this.#records.delete(`results:body:${id}`);
    await this.#records.update(
      `results:meta:${id}`,
      (raw) => ({
        value: raw && JSON.stringify({ ...(JSON.parse(raw) as StoredResult), evictedAt: now }),
        result: undefined,
      }),
      RETAIN_MS,
    );
    await this.#records.deleteEntry(ownerIndex(owner), id);
    await this.#records.deleteEntry(ALL, id);
  }
}

function ownerIndex(owner: string): string {
  return `results:owner:${owner}`;
}
