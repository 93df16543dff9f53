/**
 * The operators' desk: calls waiting for an operator's approval, shared over a
 * {@link RecordStore} — the waiting list is one map record, each answer one record, and a
 * channel says when either changes — so a call waiting on one replica is listed and answered on
 * any other, and every replica's console hears of it.
 *
 * Each request ends exactly once: the first to write its answer record wins — an operator's
 * approval or refusal, the waiting call's expiry, or its caller going away — in one atomic
 * {@link RecordStore.update}. A second answer is told `answered`, a late one `expired`. An
 * approval issues a single-use grant for exactly the waiting call ({@link GrantBook}); the
 * waiting call takes it before it runs, like any other grant.
 *
 * @module
 */
import { nodeCrypto } from '../lazy.ts';
import type { RecordStore } from '../state/records.ts';
import type { GrantBook } from './grants.ts';
import type { ApprovalAnswer, ApprovalDesk, Grant, PendingApproval } from './types.ts';

/** What a waiting call asks the operators: everything but the desk's own bookkeeping. */
export type ApprovalRequest = Omit<PendingApproval, 'id' | 'since' | 'expiresAt'>;

/** How a wait ended. */
export type Waited =
  | { readonly ok: true; readonly grant: Grant; readonly token: string }
  | {
      readonly ok: false;
      readonly reason: 'refused' | 'expired' | 'cancelled';
      readonly by?: string;
    };

/** An answer record: the operator's, or the end the waiting call came to first. */
type Answer =
  | { approve: true; by: string; token: string; grant: Grant }
  | { approve: false; by: string }
  | { ended: 'expired' | 'cancelled' };

/** The waiting list lives as long as the longest wait (a rule's `approval_ttl` is at most a day). */
const LIST_TTL_MS = 25 * 60 * 60 * 1000;

export interface OperatorDeskOptions {
  /** Milliseconds since the epoch. Default `Date.now`. */
  clock?: () => number;
  /** Where the desk's records and channel live. Default `approvals`. */
  prefix?: string;
}

export class OperatorDesk implements ApprovalDesk {
  readonly #records: RecordStore;
  readonly #book: GrantBook;
  readonly #clock: () => number;
  readonly #prefix: string;
  readonly #listeners = new Set<() => void>();
  #unsubscribe: Promise<() => void> | undefined;

  constructor(records: RecordStore, book: GrantBook, options: OperatorDeskOptions = {}) {
    this.#records = records;
    this.#book = book;
    this.#clock = options.clock ?? Date.now;
    this.#prefix = options.prefix ?? 'approvals';
  }

  async pending(): Promise<PendingApproval[]> {
    const now = this.#clock();
    const waiting: PendingApproval[] = [];
    for (const text of (await this.#records.entries(this.#listKey())).values()) {
      const pending = parse<PendingApproval>(text);
      if (pending && pending.expiresAt > now) waiting.push(pending);
    }
    return waiting.sort((a, b) => a.since - b.since);
  }

  async answer(id: string, approve: boolean, by: string): Promise<ApprovalAnswer> {
    const pending = parse<PendingApproval>(
      (await this.#records.entries(this.#listKey())).get(id) ?? '',
    );
    if (pending === undefined) {
      const ended = parse<Answer>((await this.#records.get(this.#answerKey(id))) ?? '');
      if (ended === undefined) return { ok: false, reason: 'unknown' };
      return { ok: false, reason: 'ended' in ended ? 'expired' : 'answered' };
    }
    if (pending.expiresAt <= this.#clock()) return { ok: false, reason: 'expired' };
    let answer: Answer = { approve: false, by };
    if (approve) {
      const ttl = pending.expiresAt - pending.since;
      const { grant, token } = await this.#book.issue(pending.subject, by, ttl);
      answer = { approve: true, by, token, grant };
    }
    const earlier = await this.#settle(id, answer);
    if (earlier) return { ok: false, reason: 'ended' in earlier ? 'expired' : 'answered' };
    return answer.approve ? { ok: true, grant: answer.grant } : { ok: false, reason: 'refused' };
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    this.#unsubscribe ??= this.#records.subscribe(this.#channel(), () => {
      for (const each of [...this.#listeners]) each();
    });
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size > 0 || !this.#unsubscribe) return;
      const unsubscribing = this.#unsubscribe;
      this.#unsubscribe = undefined;
      void unsubscribing.then((stop) => stop()).catch(() => undefined);
    };
  }

  /**
   * Puts `request` before the operators and waits for an answer: a grant for the call, or how
   * it ended — refused, `ttlMs` passed (`expired`), or `signal` aborted (`cancelled`).
   */
  async wait(request: ApprovalRequest, ttlMs: number, signal?: AbortSignal): Promise<Waited> {
    const since = this.#clock();
    // Hex, not base64url: operators type the id as a CLI argument, where a leading '-' reads as an option.
    const id = nodeCrypto().randomBytes(12).toString('hex');
    const pending: PendingApproval = { ...request, id, since, expiresAt: since + ttlMs };
    let wake: () => void = () => undefined;
    const woken = () => new Promise<void>((resolve) => (wake = resolve));
    let next = woken();
    const stop = await this.#records.subscribe(this.#channel(), (message) => {
      if (parse<{ id: string }>(message)?.id === id) wake();
    });
    const timer = setTimeout(() => wake(), ttlMs);
    const onAbort = () => wake();
    signal?.addEventListener('abort', onAbort);
    try {
      await this.#records.setEntry(this.#listKey(), id, JSON.stringify(pending), LIST_TTL_MS);
      await this.#announce(id);
      for (;;) {
        const answer = parse<Answer>((await this.#records.get(this.#answerKey(id))) ?? '');
        if (answer) return ended(answer);
        if (signal?.aborted || this.#clock() >= pending.expiresAt) {
          const end = signal?.aborted ? 'cancelled' : 'expired';
          // The operator may have answered in between: whoever wrote first decides.
          return ended((await this.#settle(id, { ended: end })) ?? { ended: end });
        }
        await next;
        next = woken();
      }
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      stop();
      await this.#records.deleteEntry(this.#listKey(), id).catch(() => undefined);
      await this.#announce(id).catch(() => undefined);
    }
  }

  /** Writes `answer` unless the request has one; the earlier answer when it had. */
  async #settle(id: string, answer: Answer): Promise<Answer | undefined> {
    const earlier = await this.#records.update(
      this.#answerKey(id),
      (text) =>
        text === undefined
          ? { value: JSON.stringify(answer), result: undefined }
          : { result: parse<Answer>(text) ?? { ended: 'expired' as const } },
      LIST_TTL_MS,
    );
    if (!earlier) await this.#announce(id).catch(() => undefined);
    return earlier;
  }

  #announce(id: string): Promise<void> {
    return this.#records.publish(this.#channel(), JSON.stringify({ id }));
  }

  #listKey(): string {
    return `${this.#prefix}:pending`;
  }

  #answerKey(id: string): string {
    return `${this.#prefix}:answer:${id}`;
  }

  #channel(): string {
    return `${this.#prefix}:changes`;
  }
}

function ended(answer: Answer): Waited {
  if ('ended' in answer) return { ok: false, reason: answer.ended };
  if (!answer.approve) return { ok: false, reason: 'refused', by: answer.by };
  return { ok: true, grant: answer.grant, token: answer.token };
}

function parse<T>(text: string): T | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === 'object' ? (value as T) : undefined;
  } catch {
    return undefined;
  }
}
