/**
 * The open 2025-era HTTP sessions, with the limits a server facing real clients needs:
 * sessions nobody DELETEs (most clients never do) are closed after `idleTimeoutSeconds` without
 * a request or an open stream, and past `maxSessions` in total or `maxSessionsPerCaller` for one
 * caller (callerSlots.ts) a new session is refused: 503, or 429 for the caller's cap, both with
 * `Retry-After`. Legacy SSE sessions take their slots from the same {@link CallerSlots}. Closing
 * a session closes its SDK server, which frees what hangs off it: its event store, gate unlocks
 * and kernels (through the hub's close listeners).
 *
 * @module
 */
import type { ServerResponse } from 'node:http';
import type { ServerCounters } from '../session/stats.ts';
import { CallerSlots, type ReleaseSlot, type SlotRefusal } from './callerSlots.ts';
import { sendJsonRpcError } from './mcpHttpRequest.ts';

/** Default: a session silent for 30 minutes is closed. */
export const DEFAULT_SESSION_IDLE_TIMEOUT_SECONDS = 30 * 60;
/** Default cap on open sessions. */
export const DEFAULT_MAX_SESSIONS = 1000;
/** Default cap on open sessions of one caller. */
export const DEFAULT_MAX_SESSIONS_PER_CALLER = 100;
/** What a client refused for too many sessions is told to wait (seconds). */
const RETRY_AFTER_SECONDS = 30;

export interface SessionLimits {
  /** Seconds without a request or an open stream before a session is closed; 0 never. */
  idleTimeoutSeconds?: number;
  /** Open sessions at most; a new one past it is refused. 0 means no cap. */
  maxSessions?: number;
  /** Open sessions of one caller (principal, else address) at most. 0 means no cap. */
  maxSessionsPerCaller?: number;
}

/** The session slots for these limits, to share between the transports that open sessions. */
export function sessionSlots(limits: SessionLimits = {}): CallerSlots {
  return new CallerSlots(
    limits.maxSessions ?? DEFAULT_MAX_SESSIONS,
    limits.maxSessionsPerCaller ?? DEFAULT_MAX_SESSIONS_PER_CALLER,
  );
}

/**
 * Takes a session slot for `caller`, or answers the request with 503 (server full) or 429
 * (this caller's sessions full), `Retry-After` either way, counts the refusal and returns
 * undefined.
 */
export function takeSessionSlot(
  slots: CallerSlots,
  caller: string,
  res: ServerResponse,
  counters: ServerCounters,
): ReleaseSlot | undefined {
  const slot = slots.take(caller);
  if (typeof slot === 'function') return slot;
  counters.sessions_refused += 1;
  counters.errors += 1;
  res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
  const [status, whose] = sessionCap(slot, slots);
  sendJsonRpcError(
    res,
    status,
    -32000,
    `Too many open sessions ${whose}; close unused sessions (DELETE) or retry later`,
  );
  return undefined;
}

function sessionCap(refusal: SlotRefusal, slots: CallerSlots): [number, string] {
  return refusal === 'caller'
    ? [429, `for this client (${slots.maxPerCaller}, the server's max_sessions_per_caller)`]
    : [503, `on this server (${slots.max}, the server's max_sessions)`];
}

interface Closable {
  close(): Promise<void>;
}

interface Entry<T extends Closable> {
  transport: T;
  /** Gives the session's slot back. */
  release: ReleaseSlot;
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
  readonly #timer: NodeJS.Timeout | undefined;

  constructor(
    counters: ServerCounters,
    idleTimeoutSeconds = DEFAULT_SESSION_IDLE_TIMEOUT_SECONDS,
    now: () => number = Date.now,
  ) {
    this.#counters = counters;
    this.#idleMs = idleTimeoutSeconds * 1000;
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

  /** Tracks a session that holds `release`'s slot until it is deleted. */
  add(id: string, transport: T, release: ReleaseSlot, owner?: string): void {
    this.#entries.set(id, { transport, release, lastActive: this.now(), open: 0, owner });
  }

  delete(id: string): void {
    this.#entries.get(id)?.release();
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
    for (const [id] of idle) this.delete(id);
    this.#counters.sessions_reaped += idle.length;
    await Promise.allSettled(idle.map(([, e]) => e.transport.close()));
    return idle.length;
  }

  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    const all = [...this.#entries.values()];
    for (const entry of all) entry.release();
    this.#entries.clear();
    await Promise.allSettled(all.map((e) => e.transport.close()));
  }
}
