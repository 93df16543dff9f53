/**
 * Console log-in sessions. Logging in with the management token (compared in constant time)
 * creates a random session id, kept here with its expiry and its CSRF token; the browser gets
 * only the id, in an HttpOnly, SameSite=Strict cookie — never the token. A cookie this process
 * did not mint, or one that expired or logged out, is no session.
 *
 * Without a management token configured the management API is open to loopback callers (the
 * server refuses to bind elsewhere), and so is the console: every visitor gets a session
 * without a form, because a form would guard nothing. Cross-site refusal and the CSRF token
 * still apply, so another web page the operator opens cannot act through the browser.
 *
 * @module
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { secretCheck } from '../management/auth.ts';

export const SESSION_COOKIE = 'mcp_console';
/** A session lasts this long after its last request. */
const IDLE_MS = 8 * 60 * 60 * 1000;
/** Sessions kept at most; the oldest goes first (each login makes one). */
const MAX_SESSIONS = 1000;

export interface ConsoleSession {
  id: string;
  /** Sent back in a hidden field or the `X-CSRF-Token` header of every change. */
  csrf: string;
  expires: number;
  /** The outcome of the last action, shown once on the next page. */
  flash?: { ok: boolean; text: string };
}

const newSecret = () => randomBytes(32).toString('base64url');

export class ConsoleSessions {
  readonly #matches: ((given: string | undefined) => boolean) | undefined;
  readonly #sessions = new Map<string, ConsoleSession>();
  readonly #clock: () => number;

  /** `token`: the management token; undefined or empty means none is configured. */
  constructor(token: string | undefined, clock: () => number = Date.now) {
    this.#matches = token ? secretCheck(token) : undefined;
    this.#clock = clock;
  }

  /** Whether logging in needs the token (false: no token configured, loopback only). */
  get needsToken(): boolean {
    return this.#matches !== undefined;
  }

  /** A new session when `token` is right (or none is configured); undefined otherwise. */
  login(token: string | undefined): ConsoleSession | undefined {
    if (this.#matches !== undefined && !this.#matches(token)) return undefined;
    this.#sweep();
    const session = { id: newSecret(), csrf: newSecret(), expires: this.#clock() + IDLE_MS };
    this.#sessions.set(session.id, session);
    if (this.#sessions.size > MAX_SESSIONS) {
      this.#sessions.delete(this.#sessions.keys().next().value as string);
    }
    return session;
  }

  /** The live session the request's cookie names, its expiry pushed back; else undefined. */
  of(req: IncomingMessage): ConsoleSession | undefined {
    const id = cookieValue(req.headers.cookie, SESSION_COOKIE);
    if (id === undefined) return undefined;
    const session = this.#sessions.get(id);
    if (session === undefined) return undefined;
    const now = this.#clock();
    if (session.expires <= now) {
      this.#sessions.delete(id);
      return undefined;
    }
    session.expires = now + IDLE_MS;
    return session;
  }

  logout(session: ConsoleSession): void {
    this.#sessions.delete(session.id);
  }

  #sweep(): void {
    const now = this.#clock();
    for (const [id, s] of this.#sessions) if (s.expires <= now) this.#sessions.delete(id);
  }
}

/** Whether `given` is the session's CSRF token (constant time). */
export function csrfMatches(session: ConsoleSession, given: string | undefined): boolean {
  const a = Buffer.from(session.csrf);
  const b = Buffer.from(given ?? '');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The value of cookie `name` in a `Cookie` header. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * The `Set-Cookie` value for a session (or, with `undefined`, one that clears it). `Secure` when
 * served over TLS: browsers drop Secure cookies on plain-HTTP loopback.
 */
export function sessionCookie(session: ConsoleSession | undefined, secure: boolean): string {
  const value = session ? `${SESSION_COOKIE}=${session.id}` : `${SESSION_COOKIE}=`;
  const age = session ? `Max-Age=${Math.floor(IDLE_MS / 1000)}` : 'Max-Age=0';
  return `${value}; HttpOnly; SameSite=Strict; Path=/; ${age}${secure ? '; Secure' : ''}`;
}
