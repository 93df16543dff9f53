/**
 * Every detached call of this process, by id: under 2026 HTTP each request has its own session
 * object, so a retry finds its call here by the id sealed in `requestState`. A call belongs to
 * the principal that started it; one that ended leaves a short-lived note of how, so a late
 * retry is told what happened rather than "unknown".
 *
 * @module
 */
import type { DetachedCall } from './detachedCall.ts';

/** How long a late retry is still told why its call ended. */
const ENDED_NOTE_MS = 15 * 60 * 1000;
const ENDED_NOTES_MAX = 10_000;

/** Why a call is no longer in the table, for a request that names it. */
export type EndedReason = 'finished' | 'timed out' | 'cancelled';

/** Every detached call of this process, by id, and a short memory of the ones that ended. */
export class DetachedCallTable {
  readonly #calls = new Map<string, DetachedCall>();
  readonly #ended = new Map<string, { reason: EndedReason; principal: string; at: number }>();

  add(call: DetachedCall): void {
    this.#calls.set(call.id, call);
  }

  /** The call `id` if `principal` owns it (another principal's call is as good as unknown). */
  get(id: string, principal: string): DetachedCall | undefined {
    const call = this.#calls.get(id);
    return call && call.principal === principal ? call : undefined;
  }

  /** Why `id` ended, if it did recently and belonged to `principal`. */
  ended(id: string, principal: string): EndedReason | undefined {
    const note = this.#ended.get(id);
    if (!note || note.principal !== principal) return undefined;
    if (Date.now() - note.at > ENDED_NOTE_MS) {
      this.#ended.delete(id);
      return undefined;
    }
    return note.reason;
  }

  remove(call: DetachedCall, reason: EndedReason): void {
    if (!this.#calls.delete(call.id)) return;
    if (this.#ended.size >= ENDED_NOTES_MAX) {
      const oldest = this.#ended.keys().next().value;
      if (oldest !== undefined) this.#ended.delete(oldest);
    }
    this.#ended.set(call.id, { reason, principal: call.principal, at: Date.now() });
  }
}

/** The process's table: 2026 HTTP builds a session per request, so it cannot live in one. */
export const detachedCalls = new DetachedCallTable();
