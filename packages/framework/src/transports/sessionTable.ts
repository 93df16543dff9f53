/**
 * The open 2025-era HTTP sessions, with the two limits a server facing real clients needs:
 * sessions nobody DELETEs (most clients never do) are closed after `idleTimeoutSeconds` without
 * a request or an open stream, and past `maxSessions` a new session is refused (the caller
 * answers 503 with `Retry-After`). Closing a session closes its SDK server, which frees what
 * hangs off it: its event store, gate unlocks and kernels (through the hub's close listeners).
 *
 * @module
 */
import type { ServerResponse } from 'node:http';
import type { ServerCounters } from '../session/stats.ts';

/** Default: a session silent for 30 minutes is closed. */
export const DEFAULT_SESSION_IDLE_TIMEOUT_SECONDS = 30 * 60;
/** Default cap on open sessions. */
export const DEFAULT_MAX_SESSIONS = 1000;

export interface SessionLimits {
  /** Seconds without a request or an open stream before a session is closed; 0 never. */
  idleTimeoutSeconds?: number;
  /** Open sessions at most; a new one past it is refused. 0 means no cap. */
  maxSessions?: number;
}

interface Closable {
  close(): Promise<void>;
}

interface Entry<T extends Closable> {
  transport: T;
  lastActive: number;
  /** Requests and streams of this session still open (a GET stream counts while it is open). */
  open: number;
  /** The principal that opened the session (`principalKeyOf`), when authenticated. */
  owner: string | undefined;
}

export class SessionTable<T extends Closable> {
  readonly #entries = new Map<string, Entry<T>>();
  readonly #counters: ServerCounters;
  readonly #idleMs: number;
  readonly #max: number;
  readonly #timer: NodeJS.Timeout | undefined;

  constructor(counters: ServerCounters, limits: SessionLimits = {}, now: () => number = Date.now) {
    this.#counters = counters;
    this.#idleMs = (limits.idleTimeoutSeconds ?? DEFAULT_SESSION_IDLE_TIMEOUT_SECONDS) * 1000;
    this.#max = limits.maxSessions ?? DEFAULT_MAX_SESSIONS;
    this.now = now;
    if (this.#idleMs > 0) {
      this.#timer = setInterval(() => void this.reapIdle(), Math.min(this.#idleMs / 2, 30_000));
      this.#timer.unref();
    }
  }

  readonly now: () => number;

  get size(): number {
    return this.#entries.size;
  }

  /** Whether one more session may open. Counts a refusal when not. */
  admit(): boolean {
    if (this.#max <= 0 || this.#entries.size < this.#max) return true;
    this.#counters.sessions_refused += 1;
    return false;
  }

  add(id: string, transport: T, owner?: string): void {
    this.#entries.set(id, { transport, lastActive: this.now(), open: 0, owner });
  }

  delete(id: string): void {
    this.#entries.delete(id);
  }

  /**
   * The session's transport, its activity recorded until `res` closes; undefined when there is
   * no such session, or `owner` is not the principal that opened it: a session id is no bearer
   * credential, and another principal's session is "not found" like any other.
   */
  use(id: string, res: ServerResponse, owner?: string): T | undefined {
    const entry = this.#entries.get(id);
    if (!entry || entry.owner !== owner) return undefined;
    entry.lastActive = this.now();
    entry.open += 1;
    res.once('close', () => {
      entry.open -= 1;
      entry.lastActive = this.now();
    });
    return entry.transport;
  }

  /** Closes sessions idle for longer than the timeout. Returns how many. */
  async reapIdle(): Promise<number> {
    if (this.#idleMs <= 0) return 0;
    const cutoff = this.now() - this.#idleMs;
    const idle = [...this.#entries].filter(([, e]) => e.open === 0 && e.lastActive < cutoff);
    for (const [id] of idle) this.#entries.delete(id);
    this.#counters.sessions_reaped += idle.length;
    await Promise.allSettled(idle.map(([, e]) => e.transport.close()));
    return idle.length;
  }

  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    const all = [...this.#entries.values()];
    this.#entries.clear();
    await Promise.allSettled(all.map((e) => e.transport.close()));
  }
}
