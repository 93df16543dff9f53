/**
 * Text that grows as a cell prints, kept within a bound: past `max` characters the middle goes
 * and only the start and the latest output stay, with counts of what went. A cell that prints
 * in a loop until its timeout can produce gigabytes; keeping all of it (three times: the reader's
 * text, stdout, stderr) would take the whole server down, every caller's kernel with it.
 *
 * @module
 */

/** Characters and line ends (`\n`) dropped from the middle, and where. */
export interface Omitted {
  chars: number;
  lines: number;
  /** Offset in the kept text where the dropped part was. */
  at: number;
}

/** Default bound: 8 M characters, beyond any `max_output_chars` and output resource. */
export const MAX_KEPT_CHARS = 8_000_000;

export class BoundedText {
  readonly #max: number;
  /** With a marker, the kept text says where and how much was dropped (for library users). */
  readonly #marker: boolean;
  #text = '';
  #omitted: Omitted | undefined;
  /** Length of the marker currently in the text, right after the head. */
  #markerLength = 0;

  constructor({ max = MAX_KEPT_CHARS, marker = false } = {}) {
    this.#max = max;
    this.#marker = marker;
  }

  get text(): string {
    return this.#text;
  }

  get omitted(): Omitted | undefined {
    return this.#omitted;
  }

  append(text: string): void {
    this.#text += text;
    // Trimmed in batches (a quarter over the bound) so that appends stay amortized O(length).
    if (this.#text.length > this.#max * 1.25) this.#trim();
  }

  #trim(): void {
    const head = this.#omitted?.at ?? Math.floor(this.#max / 2);
    const keepTail = this.#max - head;
    const from = head + this.#markerLength;
    const to = this.#text.length - keepTail;
    const dropped = this.#text.slice(from, to);
    const chars = (this.#omitted?.chars ?? 0) + dropped.length;
    const lines = (this.#omitted?.lines ?? 0) + newlines(dropped);
    this.#omitted = { chars, lines, at: head };
    const marker = this.#marker
      ? `\n[… ${chars} characters (${lines} line ends) of output not kept: more than ${this.#max} …]\n`
      : '';
    this.#markerLength = marker.length;
    this.#text = this.#text.slice(0, head) + marker + this.#text.slice(to);
  }
}

function newlines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n += 1;
  return n;
}
