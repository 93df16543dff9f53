/**
 * Lines typed (or piped) into the client, taken one at a time by whoever is asking: the main
 * prompt or a parameter question. Piped input arrives faster than commands finish; the queue
 * keeps the lines in order until each is asked for.
 */
export class LineQueue {
  #lines: string[] = [];
  #waiter: ((line: string | null) => void) | null = null;
  #ended = false;

  push(line: string): void {
    const waiter = this.#waiter;
    this.#waiter = null;
    if (waiter) waiter(line);
    else this.#lines.push(line);
  }

  /** Input is over: the waiting read and every later one get null once the queue is empty. */
  end(): void {
    this.#ended = true;
    this.interrupt();
  }

  /** Gives the waiting read null (Ctrl-C during a question) without ending the input. */
  interrupt(): void {
    const waiter = this.#waiter;
    this.#waiter = null;
    waiter?.(null);
  }

  get waiting(): boolean {
    return this.#waiter !== null;
  }

  next(): Promise<string | null> {
    if (this.#lines.length > 0) return Promise.resolve(this.#lines.shift()!);
    if (this.#ended) return Promise.resolve(null);
    return new Promise((resolve) => {
      this.#waiter = resolve;
    });
  }
}
