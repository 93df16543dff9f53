/**
 * One timer for every upstream request's deadline, instead of a `setTimeout` armed and cleared
 * per request (and re-armed per progress notification): on a mirrored call those two were the
 * largest share of our own CPU after the pipe writes. A deadline says when it is due; the timer
 * is armed for the earliest due time it knows of, and when it fires it ends what is due and
 * re-arms for the next. Moving a deadline later (`touch`) costs a field write; the timer finds
 * out when it fires. The timer holds the process open only while some deadline is watched, as
 * the per-request timers did.
 *
 * @module
 */

/** What the clock watches: a due time, and what to do when it has passed. */
export interface Due {
  /** `performance.now()` time at or after which {@link expire} is called. */
  dueAt: number;
  expire(): void;
}

export class DeadlineClock {
  readonly #watched = new Set<Due>();
  #timer: NodeJS.Timeout | undefined;
  /** When the timer fires; Infinity when it is not armed. */
  #armedFor = Number.POSITIVE_INFINITY;

  /** Watches `due` (again) until it expires or {@link unwatch}; call after moving `dueAt` earlier. */
  watch(due: Due): void {
    this.#watched.add(due);
    if (this.#watched.size === 1) this.#timer?.ref();
    if (due.dueAt < this.#armedFor) this.#arm(due.dueAt);
  }

  unwatch(due: Due): void {
    // The timer stays armed: disarming and arming again per request is what this saves. With
    // nothing watched it no longer holds the process open, and when it fires it finds nothing.
    if (this.#watched.delete(due) && this.#watched.size === 0) this.#timer?.unref();
  }

  #arm(at: number): void {
    clearTimeout(this.#timer);
    this.#armedFor = at;
    // At least 1 ms: a timer may fire a fraction of a millisecond before `at` by this clock.
    this.#timer = setTimeout(() => this.#fire(), Math.max(1, Math.ceil(at - performance.now())));
    if (this.#watched.size === 0) this.#timer.unref();
  }

  #fire(): void {
    this.#timer = undefined;
    this.#armedFor = Number.POSITIVE_INFINITY;
    const now = performance.now();
    let next = Number.POSITIVE_INFINITY;
    const expired: Due[] = [];
    for (const due of this.#watched) {
      if (due.dueAt <= now) expired.push(due);
      else if (due.dueAt < next) next = due.dueAt;
    }
    for (const due of expired) this.#watched.delete(due);
    if (next < Number.POSITIVE_INFINITY) this.#arm(next);
    // Last: an expiry may start or end other requests, which watch and unwatch again.
    for (const due of expired) due.expire();
  }
}

/** The clock of every upstream request in this process. */
export const deadlineClock = new DeadlineClock();
