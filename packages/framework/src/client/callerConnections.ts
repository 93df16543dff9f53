/**
 * `CallerConnections`: one upstream, one connection per caller, each made with that caller's own
 * resolved headers (per-user credentials). A connection is never handed to another key, so one
 * principal's upstream session and credentials never serve another's call.
 *
 * Each `use()` passes the headers resolved for this call: when they differ from the connection's
 * (a rotated secret, a new exchanged token), a new connection replaces it, and the old one closes
 * once its running calls are done. A connection unused for `idleMs` is closed; `close()` ends
 * them all (unload, shutdown). While a connection is open, its header values are remembered for
 * the tool-call logs' redaction (`toollog/secretValues.ts`).
 *
 * @module
 */

import { nodeCrypto } from '../lazy.ts';
import { rememberSecretValues } from '../toollog/secretValues.ts';
import { UpstreamConnection, type UpstreamConnectionOptions } from './connection.ts';
import type { UpstreamParams } from './params.ts';

interface Entry {
  connection: UpstreamConnection;
  /** A digest of the headers it was made with. */
  digest: string;
  forget: () => void;
  running: number;
  lastUsed: number;
  retired: boolean;
}

/** Five minutes: long enough for a conversation's calls, short for a caller who left. */
export const DEFAULT_IDLE_MS = 5 * 60_000;

export class CallerConnections {
  readonly #name: string;
  readonly #params: UpstreamParams;
  readonly #options: UpstreamConnectionOptions;
  readonly #idleMs: number;
  readonly #entries = new Map<string, Entry>();
  #sweeper: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(
    name: string,
    params: UpstreamParams,
    options: UpstreamConnectionOptions & { idleMs?: number } = {},
  ) {
    const { idleMs, ...connectionOptions } = options;
    this.#name = name;
    this.#params = params;
    this.#options = connectionOptions;
    this.#idleMs = idleMs ?? DEFAULT_IDLE_MS;
  }

  /** How many callers have a connection open. */
  get size(): number {
    return this.#entries.size;
  }

  /** Runs `work` over `key`'s connection made with `headers`, creating or replacing it first. */
  async use<T>(
    key: string,
    headers: Record<string, string>,
    work: (connection: UpstreamConnection) => Promise<T>,
  ): Promise<T> {
    const entry = this.#entryFor(key, headers);
    entry.running++;
    try {
      return await work(entry.connection);
    } finally {
      entry.running--;
      entry.lastUsed = Date.now();
      if (entry.retired && entry.running === 0) this.#end(entry);
    }
  }

  /** Closes every connection; later `use()` calls fail as a closed connection does. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#sweeper);
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    await Promise.all(entries.map((entry) => this.#end(entry)));
  }

  #entryFor(key: string, headers: Record<string, string>): Entry {
    const digest = nodeCrypto()
      .createHash('sha256')
      .update(JSON.stringify(headers))
      .digest('base64url');
    const existing = this.#entries.get(key);
    if (existing && existing.digest === digest && !existing.connection.closed) return existing;
    if (existing) this.#retire(key, existing);
    const connection = new UpstreamConnection(this.#name, this.#params, {
      ...this.#options,
      headers,
    });
    if (this.#closed) void connection.close();
    const entry: Entry = {
      connection,
      digest,
      forget: rememberSecretValues(headers),
      running: 0,
      lastUsed: Date.now(),
      retired: false,
    };
    this.#entries.set(key, entry);
    this.#sweeper ??= setInterval(() => this.#sweep(), Math.max(1000, this.#idleMs / 2)).unref();
    return entry;
  }

  #retire(key: string, entry: Entry): void {
    if (this.#entries.get(key) === entry) this.#entries.delete(key);
    entry.retired = true;
    if (entry.running === 0) void this.#end(entry);
  }

  #sweep(): void {
    const before = Date.now() - this.#idleMs;
    for (const [key, entry] of this.#entries) {
      if (entry.running === 0 && entry.lastUsed <= before) this.#retire(key, entry);
    }
    if (this.#entries.size === 0) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
    }
  }

  async #end(entry: Entry): Promise<void> {
    entry.forget();
    await entry.connection.close();
  }
}
