/**
 * A tool call that outlives the request that started it: the handler runs once, and the
 * requests of a 2026-07-28 client (the first `tools/call`, then each retry carrying answers) or
 * the polls of a task take turns watching it.
 *
 * The handler asks its questions live (`ctx.elicit` waits for the answer, nothing is re-run);
 * each question waits in the call until an answer is delivered, the call is aborted, or
 * {@link DetachedCall.inputTimeoutMs} passes — then it fails with {@link InputTimeoutError} and
 * the handler goes on with that (ipybox: `ApprovalTimeout` in Python).
 *
 * Notifications the handler sends (progress, log) reach the request that currently waits on the
 * call, with that request's progress token; between requests there is nobody to tell and they go
 * to {@link DetachedCallOptions.onIdleNotification} (a task keeps the progress as its status).
 *
 * Calls live in one process-wide table (`detachedCallTable.ts`), where a retry finds its call;
 * the context a handler runs with relays to the waiting request (`detachedContext.ts`).
 *
 * @module
 */

import type { InputRequest, Notification, ServerContext } from '@modelcontextprotocol/server';
import type { RequestExtra } from '../contract/tool.ts';
import { nodeCrypto } from '../lazy.ts';
import { relayedContext } from './detachedContext.ts';
import { type InputKind, inputRequestOf } from './questions.ts';

/** Default time a question waits for its answer: the lifetime of a sealed `requestState`. */
export const DEFAULT_INPUT_TIMEOUT_MS = 15 * 60 * 1000;

const CALL_ID_BYTES = 24;
/** Random bytes for call ids, drawn 24 at a time and refilled when used up, never reused. */
const idPool = Buffer.allocUnsafe(CALL_ID_BYTES * 128);
let idPoolOffset = idPool.length;

/**
 * A fresh unguessable call id (192 random bits). Every 2026 call to a keeps-running tool gets
 * one, also the many that never ask anything: one `randomFillSync` per 128 ids rather than a
 * `randomBytes` per call (its own CSPRNG round trip, as `crypto.randomUUID` pools too).
 */
export function newCallId(): string {
  if (idPoolOffset === idPool.length) {
    nodeCrypto().randomFillSync(idPool);
    idPoolOffset = 0;
  }
  const id = idPool.toString('base64url', idPoolOffset, idPoolOffset + CALL_ID_BYTES);
  idPoolOffset += CALL_ID_BYTES;
  return id;
}

/** A question of a detached call that nobody answered in time. */
export class InputTimeoutError extends Error {
  /** How long the question waited. */
  readonly seconds: number;
  constructor(seconds: number) {
    super(`no answer from the client within ${seconds} s; the question was withdrawn`);
    this.name = 'InputTimeoutError';
    this.seconds = seconds;
  }
}

/** One question waiting for the client. */
export interface PendingQuestion {
  readonly key: string;
  readonly kind: InputKind;
  /** The question as the client receives it in `inputRequests`. */
  readonly request: InputRequest;
  /** Digest of kind and parameters, sealed with the round so an answer fits only its question. */
  readonly digest: string;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  /** Stops the question's timer and its withdrawal listener. */
  release(): void;
}

export type CallOutcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export interface DetachedCallOptions {
  /** Who started the call: only the same principal may watch or answer it. */
  principal: string;
  /**
   * The tool (or prompt) and a digest of its arguments; a retry must name the same. A function
   * is called on first use: a call that never asks a question never needs it.
   */
  call: string | (() => string);
  inputTimeoutMs?: number;
  /** Where notifications go while no request waits on the call (default: dropped). */
  onIdleNotification?: (notification: Notification) => void;
}

export class DetachedCall {
  /** Unguessable: it is all a retry needs besides the principal. */
  readonly id = newCallId();
  readonly principal: string;
  readonly inputTimeoutMs: number;
  readonly createdAt = new Date();
  lastUpdatedAt = new Date();
  #call: string | (() => string);
  readonly #controller = new AbortController();
  readonly #onIdleNotification: ((notification: Notification) => void) | undefined;
  readonly #questions = new Map<string, PendingQuestion>();
  /** Keys of questions that timed out, so a late answer is told so. */
  readonly #timedOut = new Set<string>();
  #asked = 0;
  #outcome: CallOutcome | undefined;
  #waiter: ServerContext | undefined;
  #wakers: (() => void)[] = [];
  #wakeScheduled = false;
  /** Resolves once the handler has returned or thrown. */
  readonly settled: Promise<void>;
  #resolveSettled!: () => void;

  constructor(options: DetachedCallOptions) {
    this.principal = options.principal;
    this.#call = options.call;
    this.inputTimeoutMs = options.inputTimeoutMs ?? DEFAULT_INPUT_TIMEOUT_MS;
    this.#onIdleNotification = options.onIdleNotification;
    this.settled = new Promise((resolve) => {
      this.#resolveSettled = resolve;
    });
  }

  /** The tool (or prompt) and a digest of its arguments (see {@link DetachedCallOptions.call}). */
  get call(): string {
    if (typeof this.#call === 'function') this.#call = this.#call();
    return this.#call;
  }

  /** The handler's signal: aborted by cancellation, never by a request ending normally. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get outcome(): CallOutcome | undefined {
    return this.#outcome;
  }

  /** Questions still waiting for an answer, in the order asked. */
  get questions(): PendingQuestion[] {
    return [...this.#questions.values()];
  }

  /** Runs the handler once; its result or error becomes the call's outcome. */
  start(run: () => Promise<unknown>): void {
    run().then(
      (value) => this.#settle({ ok: true, value }),
      (error) => this.#settle({ ok: false, error }),
    );
  }

  #settle(outcome: CallOutcome): void {
    if (this.#outcome) return;
    this.#outcome = outcome;
    this.#touch();
    this.#resolveSettled();
    this.#wake();
  }

  /**
   * A question from the handler: waits for {@link answer}. Questions asked together (in one
   * turn of the event loop) are woken together, so they reach the client in one round.
   */
  ask(
    kind: InputKind,
    params: unknown,
    digest: string,
    key?: string,
    signal?: AbortSignal,
  ): Promise<unknown> {
    const name = key ?? `q${this.#asked}`;
    this.#asked += 1;
    if (this.#questions.has(name) || this.#timedOut.has(name)) {
      return Promise.reject(
        new Error(`Two questions of one call are named '${name}'; give each its own key`),
      );
    }
    if (this.#controller.signal.aborted) return Promise.reject(this.#controller.signal.reason);
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const seconds = Math.round(this.inputTimeoutMs / 1000);
      const timer = setTimeout(
        () => this.#giveUp(name, new InputTimeoutError(seconds)),
        this.inputTimeoutMs,
      );
      timer.unref();
      const withdraw = () => this.#giveUp(name, signal?.reason);
      signal?.addEventListener('abort', withdraw, { once: true });
      this.#questions.set(name, {
        key: name,
        kind,
        request: inputRequestOf(kind, params),
        digest,
        resolve,
        reject,
        release: () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', withdraw);
        },
      });
      this.#touch();
      if (!this.#wakeScheduled) {
        this.#wakeScheduled = true;
        setImmediate(() => {
          this.#wakeScheduled = false;
          this.#wake();
        });
      }
    });
  }

  /**
   * A question nobody answered in time, or that the handler withdrew (its signal): it fails with
   * `error`, and {@link onTimeout} lets the table stop keeping the call for a retry.
   */
  #giveUp(key: string, error: unknown): void {
    const question = this.#questions.get(key);
    if (!question) return;
    this.#questions.delete(key);
    question.release();
    this.#timedOut.add(key);
    this.#touch();
    question.reject(error);
    this.onTimeout?.(key);
  }

  /** Runs after a question timed out or was withdrawn (the table drops the call). */
  onTimeout: ((key: string) => void) | undefined;

  /** Whether `key` names a question that timed out. */
  timedOut(key: string): boolean {
    return this.#timedOut.has(key);
  }

  /** Hands the client's answer to the waiting question `key`; false if none waits. */
  answer(key: string, value: unknown): boolean {
    const question = this.#questions.get(key);
    if (!question) return false;
    this.#questions.delete(key);
    question.release();
    this.#touch();
    question.resolve(value);
    return true;
  }

  /** Resolves once the call has an outcome, a question is waiting, or it was aborted. */
  next(): Promise<void> {
    if (this.#outcome || this.#questions.size > 0 || this.#controller.signal.aborted) {
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#wakers.push(resolve));
  }

  #wake(): void {
    const wakers = this.#wakers;
    this.#wakers = [];
    for (const wake of wakers) wake();
  }

  #touch(): void {
    this.lastUpdatedAt = new Date();
  }

  /** Cancels the call: the handler's signal aborts and every waiting question fails. */
  abort(reason: Error): void {
    if (this.#controller.signal.aborted) return;
    this.#controller.abort(reason);
    for (const question of this.#questions.values()) {
      question.release();
      question.reject(reason);
    }
    this.#questions.clear();
    this.#touch();
    this.#wake();
  }

  /**
   * Stops the timers of questions left waiting after the handler returned (it did not await
   * them). They are not rejected: nobody listens, and an unheard rejection would crash Node.
   */
  dispose(): void {
    for (const question of this.#questions.values()) question.release();
    this.#questions.clear();
  }

  get aborted(): boolean {
    return this.#controller.signal.aborted;
  }

  /** The request now waiting on the call (its notifications go there); one at a time. */
  attach(waiter: ServerContext): boolean {
    if (this.#waiter) return false;
    this.#waiter = waiter;
    return true;
  }

  detach(waiter: ServerContext): void {
    if (this.#waiter === waiter) this.#waiter = undefined;
  }

  /**
   * The request context the handler runs with: the first request's fields, the call's signal,
   * and notifications sent to whichever request waits on the call now (detachedContext.ts).
   */
  contextFrom(first: RequestExtra, meta?: RequestExtra['_meta']): RequestExtra {
    return relayedContext(first, meta ?? first.mcpReq._meta, {
      signal: this.signal,
      waiter: () => this.#waiter,
      idle: (notification) => this.#onIdleNotification?.(notification),
    });
  }
}
