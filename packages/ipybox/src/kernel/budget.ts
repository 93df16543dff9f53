/**
 * A cell's execution timeout that can be paused: time spent waiting for something outside the
 * code (a human approving a tool call) should not count against it. Pauses nest; the clock runs
 * only while the cell runs and no pause is open.
 *
 * Every running budget of the process shares one Node timer, armed for the earliest deadline.
 * Cells run one after another, mostly with the same timeout: a timer of their own meant creating
 * and clearing a timer list and a priority-queue entry for every cell, on the path of every
 * small call; now a cell whose deadline is later than the armed one only joins a map, and a
 * wake-up that finds nothing due re-arms for what is left.
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
  /** `performance.now()` when the clock last started; undefined while it stands still. */
  #startedAt: number | undefined;
  #onExpire: (() => void) | undefined;
  #done = false;

  /** Budgets whose clock runs, with their deadline (`performance.now()` ms). */
  static readonly #running = new Map<TimeoutBudget, number>();
  /** The shared timer; it keeps the process alive only while some clock runs. */
  static #timer: NodeJS.Timeout | undefined;
  /** The deadline the timer is armed for. */
  static #armedFor = Number.POSITIVE_INFINITY;

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
    if (!this.#onExpire || this.#done || this.#startedAt !== undefined) return;
    this.#startedAt = performance.now();
    TimeoutBudget.#watch(this, this.#startedAt + this.#remaining);
  }

  #halt(): void {
    if (this.#startedAt === undefined) return;
    TimeoutBudget.#unwatch(this);
    this.#remaining = Math.max(0, this.#remaining - (performance.now() - this.#startedAt));
    this.#startedAt = undefined;
  }

  #expire(): void {
    this.#startedAt = undefined;
    this.#remaining = 0;
    this.#done = true;
    this.#onExpire?.();
  }

  static #watch(budget: TimeoutBudget, deadline: number): void {
    const running = TimeoutBudget.#running;
    running.set(budget, deadline);
    if (deadline < TimeoutBudget.#armedFor) TimeoutBudget.#arm(deadline);
    else if (running.size === 1) TimeoutBudget.#timer?.ref();
  }

  static #unwatch(budget: TimeoutBudget): void {
    const running = TimeoutBudget.#running;
    // The timer stays armed for a later budget to use, but keeps nobody alive meanwhile.
    if (running.delete(budget) && running.size === 0) TimeoutBudget.#timer?.unref();
  }

  static #arm(deadline: number): void {
    clearTimeout(TimeoutBudget.#timer);
    TimeoutBudget.#armedFor = deadline;
    TimeoutBudget.#timer = setTimeout(TimeoutBudget.#wake, deadline - performance.now());
  }

  static readonly #wake = (): void => {
    TimeoutBudget.#timer = undefined;
    TimeoutBudget.#armedFor = Number.POSITIVE_INFINITY;
    // Node's timers count whole milliseconds of the event loop's clock, so a timer may fire up to
    // 1 ms before performance.now() reaches its deadline: such a deadline is due, as it was with
    // a timer of its own.
    const now = performance.now() + 1;
    const due: TimeoutBudget[] = [];
    let next = Number.POSITIVE_INFINITY;
    for (const [budget, deadline] of TimeoutBudget.#running) {
      if (deadline <= now) due.push(budget);
      else if (deadline < next) next = deadline;
    }
    for (const budget of due) TimeoutBudget.#running.delete(budget);
    if (next < Number.POSITIVE_INFINITY) TimeoutBudget.#arm(next);
    for (const budget of due) budget.#expire();
  };
}
