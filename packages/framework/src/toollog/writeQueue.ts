/**
 * The background queue behind every file logger: writes run one after another, off the caller's
 * path; a failure becomes one warning (repeated only after writing has worked again), never an
 * exception; a backlog past `maxPending` is dropped rather than eating memory.
 *
 * @module
 */
import type { WarningSink } from './types.ts';

export class WriteQueue {
  readonly #name: string;
  readonly #logger: WarningSink;
  readonly #maxPending: number;
  #tail: Promise<void> = Promise.resolve();
  #pending = 0;
  #failing = false;
  #dropped = 0;

  constructor(name: string, logger: WarningSink, maxPending = 10_000) {
    this.#name = name;
    this.#logger = logger;
    this.#maxPending = maxPending;
  }

  /** Queues `write`; returns at once. */
  push(write: () => Promise<void>): void {
    if (this.#pending >= this.#maxPending) {
      if (this.#dropped++ === 0) {
        this.#warn(
          `${this.#name}: ${this.#maxPending} entries waiting to be written; dropping entries`,
        );
      }
      return;
    }
    this.#pending++;
    this.#tail = this.#tail.then(async () => {
      try {
        await write();
        this.#failing = false;
        this.#dropped = 0;
      } catch (error) {
        if (!this.#failing) {
          this.#failing = true;
          this.#warn(
            `${this.#name}: cannot write (${error instanceof Error ? error.message : String(error)}); tool calls go on unlogged`,
          );
        }
      } finally {
        this.#pending--;
      }
    });
  }

  /** Resolves when everything queued before this call has been tried. */
  flush(): Promise<void> {
    return this.#tail;
  }

  #warn(message: string): void {
    try {
      this.#logger.warn(message);
    } catch {
      // A broken logger must not break the tool call either.
    }
  }
}
