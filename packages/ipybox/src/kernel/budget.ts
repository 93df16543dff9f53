/**
 * A cell's execution timeout that can be paused: time spent waiting for something outside the
 * code (a human approving a tool call) should not count against it. Pauses nest; the clock runs
 * only while the cell runs and no pause is open.
 *
 * @example
 * const budget = new TimeoutBudget(30_000);
 * const result = client.execute(code, { timeout: budget });
 * approvals.onPendingChange((n) => (n > 0 ? budget.pause() : budget.resume()));
 * @module
 */
export class TimeoutBudget {
  /** The allowance in ms. */
  readonly total: number;
  #remaining: number;
  #pauses = 0;
  #startedAt: number | undefined;
  #timer: NodeJS.Timeout | undefined;
  #onExpire: (() => void) | undefined;
  #done = false;

  constructor(total: number) {
    if (!(typeof total === 'number' && total > 0 && total < 2 ** 31)) {
      throw new RangeError(
        `timeout must be a positive number of milliseconds below 2^31, got ${String(total)}`,
      );
    }
    this.total = total;
    this.#remaining = total;
  }

  /** Milliseconds left (not counting the current running stretch until it is paused). */
  get remaining(): number {
    return this.#remaining;
  }

  /**
   * Whether the allowance is used up now, counting the running stretch: for code that keeps the
   * event loop busy (a JavaScript isolate's interrupt handler polls it), so the timer cannot fire.
   */
  get spent(): boolean {
    if (this.#done) return this.#remaining === 0;
    return this.#timer !== undefined && performance.now() - this.#startedAt! >= this.#remaining;
  }

  /** Stops the clock until the matching `resume()`. */
  pause(): void {
    this.#pauses += 1;
    if (this.#pauses === 1) this.#halt();
  }

  resume(): void {
    if (this.#pauses === 0) return;
    this.#pauses -= 1;
    if (this.#pauses === 0) this.#run();
  }

  /** Called by the client when the cell starts; `onExpire` fires once the allowance is used up. */
  start(onExpire: () => void): void {
    if (this.#onExpire) throw new Error('a TimeoutBudget serves one execution');
    this.#onExpire = onExpire;
    if (this.#pauses === 0) this.#run();
  }

  /** Called by the client when the cell ends. */
  stop(): void {
    this.#done = true;
    this.#halt();
  }

  #run(): void {
    if (!this.#onExpire || this.#done || this.#timer) return;
    this.#startedAt = performance.now();
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#remaining = 0;
      this.#done = true;
      this.#onExpire?.();
    }, this.#remaining);
  }

  #halt(): void {
    if (!this.#timer) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#remaining = Math.max(0, this.#remaining - (performance.now() - this.#startedAt!));
  }
}
