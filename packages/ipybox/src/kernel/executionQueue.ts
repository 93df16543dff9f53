/**
 * `ExecutionQueue`: the one queue of a kernel — cells, and the work that must not overlap them
 * (ipybox's approvals asked outside a cell), run one at a time in submission order. What belongs
 * to the running cell only is set up when its turn comes (`onTurn`), so nobody above the kernel
 * client needs a queue of its own.
 *
 * @module
 */
import { KernelError } from './errors.ts';

export interface TurnOptions {
  /** Aborted before its turn: the task is rejected (`EXECUTION_CANCELLED`) instead of run. */
  signal?: AbortSignal;
  /** Called when the turn comes, right before the task; what it returns, once the task ended. */
  onTurn?: () => () => void;
}

export class ExecutionQueue {
  /** Tail of the queue: each task waits for the one before it. */
  #tail: Promise<unknown> = Promise.resolve();
  /** Tasks queued before the latest `dropQueued()` are rejected instead of run. */
  #epoch = 0;
  readonly #closed: () => boolean;

  /** `closed`: asked when a task's turn comes; a closed client runs nothing more. */
  constructor(closed: () => boolean) {
    this.#closed = closed;
  }

  /** Runs `task` once every task added before it has settled. */
  add<T>(task: () => Promise<T>, { signal, onTurn }: TurnOptions = {}): Promise<T> {
    const epoch = this.#epoch;
    const run = this.#tail.then(() => {
      if (this.#closed()) throw new KernelError('CLIENT_CLOSED', 'The kernel client is closed.');
      if (epoch !== this.#epoch || signal?.aborted) {
        throw new KernelError(
          'EXECUTION_CANCELLED',
          'The execution was cancelled before it started.',
        );
      }
      return onTurn ? inTurn(onTurn, task) : task();
    });
    this.#tail = run.catch(() => {});
    return run;
  }

  /** Rejects every task waiting now (`EXECUTION_CANCELLED`); the running one is the caller's. */
  dropQueued(): void {
    this.#epoch += 1;
  }
}

/** Runs `task` between `onTurn()` and the function it returned. */
async function inTurn<T>(onTurn: () => () => void, task: () => Promise<T>): Promise<T> {
  const ended = onTurn();
  try {
    return await task();
  } finally {
    ended();
  }
}
