/**
 * Slots of a kind (open sessions, open `subscriptions/listen` streams) counted in total and per
 * caller, so one client cannot take them all: past either cap a new one is refused.
 *
 * The caller is the authenticated principal when there is one (`sub:…`, `user:…`, `client:…`),
 * else the client's network address: an unauthenticated client can open any number of TCP
 * connections, but not from any number of addresses. Clients behind one reverse proxy without
 * authentication share its address, and so one per-caller cap.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { principalKeyOf } from '../auth/principal.ts';

/** Which cap refused a new slot. */
export type SlotRefusal = 'total' | 'caller';

/** Gives a slot back; calling it again does nothing. */
export type ReleaseSlot = () => void;

/** Who holds a slot: the principal, else the peer address. */
export function callerOf(req: IncomingMessage & { auth?: AuthInfo }): string {
  return principalKeyOf(req.auth) ?? `address:${req.socket.remoteAddress ?? 'unknown'}`;
}

export class CallerSlots {
  readonly #perCaller = new Map<string, number>();
  #used = 0;

  /**
   * @param max Slots at most over all callers; 0 means no cap.
   * @param maxPerCaller Slots at most per caller; 0 means no cap.
   */
  constructor(
    readonly max: number,
    readonly maxPerCaller: number,
  ) {}

  /** Slots held now, over all callers. */
  get size(): number {
    return this.#used;
  }

  /** Takes a slot for `caller` at once (so concurrent requests cannot overshoot), or says which cap is full. */
  take(caller: string): ReleaseSlot | SlotRefusal {
    if (this.max > 0 && this.#used >= this.max) return 'total';
    const held = this.#perCaller.get(caller) ?? 0;
    if (this.maxPerCaller > 0 && held >= this.maxPerCaller) return 'caller';
    this.#used += 1;
    this.#perCaller.set(caller, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#used -= 1;
      const left = (this.#perCaller.get(caller) ?? 1) - 1;
      if (left === 0) this.#perCaller.delete(caller);
      else this.#perCaller.set(caller, left);
    };
  }
}
