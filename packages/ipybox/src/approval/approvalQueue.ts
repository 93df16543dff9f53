/**
 * `ApprovalQueue`: the gate's requests as an async iterator, for a consumer that decides them in
 * its own loop — `CodeExecutor.stream` yields each request beside output chunks and the result,
 * and the caller answers with `request.accept()` / `request.reject()`.
 *
 * It also reports how many requests wait (`onPendingChange`), so the executor can pause its
 * execution timeout while the count is above zero: time spent waiting for a human is not
 * execution time.
 *
 * @example
 * const queue = new ApprovalQueue(toolServer.approval);
 * queue.onPendingChange((n) => (n > 0 ? budget.pause() : budget.resume()));
 * try {
 *   // race queue.next() against the kernel's next chunk; yield whichever comes first
 * } finally {
 *   queue.close(); // undecided requests fail as `unavailable`
 * }
 *
 * @module
 */
import type { ApprovalGate } from './approvalGate.ts';
import type { ApprovalRequest } from './approvalRequest.ts';

export class ApprovalQueue implements AsyncIterableIterator<ApprovalRequest> {
  readonly #detach: () => void;
  readonly #ready: ApprovalRequest[] = [];
  readonly #waiters: ((result: IteratorResult<ApprovalRequest>) => void)[] = [];
  readonly #pendingListeners = new Set<(pending: number) => void>();
  #pending = 0;
  #closed = false;

  /** Attaches to `gate` as its current approver, until {@link close}. */
  constructor(gate: ApprovalGate) {
    this.#detach = gate.attach((request) => {
      this.#track(request);
      const waiter = this.#waiters.shift();
      if (waiter) waiter({ value: request, done: false });
      else this.#ready.push(request);
      return undefined; // decided by whoever receives it
    }, 'stream');
  }

  /** Requests received and not yet settled (handed out or still queued). */
  get pending(): number {
    return this.#pending;
  }

  /** Called with the new count whenever a request arrives or settles. */
  onPendingChange(listener: (pending: number) => void): () => void {
    this.#pendingListeners.add(listener);
    return () => this.#pendingListeners.delete(listener);
  }

  /** The next request that needs a decision; `done` once the queue is closed. */
  next(): Promise<IteratorResult<ApprovalRequest>> {
    const ready = this.#ready.shift();
    if (ready) return Promise.resolve({ value: ready, done: false });
    if (this.#closed) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async return(): Promise<IteratorResult<ApprovalRequest>> {
    this.close();
    return { value: undefined, done: true };
  }

  /** Detaches from the gate; requests not yet decided fail as `unavailable`. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#detach();
    this.#ready.length = 0;
    for (const waiter of this.#waiters.splice(0)) waiter({ value: undefined, done: true });
  }

  #track(request: ApprovalRequest): void {
    this.#changePending(+1);
    void request.settled.then(() => {
      const index = this.#ready.indexOf(request);
      if (index >= 0) this.#ready.splice(index, 1); // timed out before anyone took it
      this.#changePending(-1);
    });
  }

  #changePending(delta: number): void {
    this.#pending += delta;
    for (const listener of this.#pendingListeners) listener(this.#pending);
  }
}

/**
 * Pauses `budget` while `gate` has a request waiting for a decision that no queue hands out (the
 * approval clients decide, `approval: channel`): time spent waiting for a human is not execution
 * time. Returns the unsubscriber.
 */
export function pauseWhileDeciding(
  gate: ApprovalGate,
  budget: { pause(): void; resume(): void },
): () => void {
  let pending = 0;
  return gate.onRequest((request) => {
    if (++pending === 1) budget.pause();
    void request.settled.then(() => {
      if (--pending === 0) budget.resume();
    });
  });
}
