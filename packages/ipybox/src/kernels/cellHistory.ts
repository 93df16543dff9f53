/**
 * The code of the cells that worked in one kernel, as the host sent them, so `save_skill` can
 * save cells by reference instead of the client sending their code again. Kept on the host, not
 * read from IPython's `In`: nothing has to run in the kernel (which may be busy or elsewhere),
 * and a cell that raised is not a candidate for a skill.
 *
 * A reference is IPython's execution count (`In [n]`), or a negative index from the end: `-1` is
 * the last cell that worked, `-2` the one before.
 *
 * @module
 */

/** How many cells are remembered per kernel (the oldest are forgotten first). */
const KEPT = 200;

interface Cell {
  count: number | null;
  code: string;
}

export class CellHistory {
  readonly #cells: Cell[] = [];

  /** Records a cell that finished without an exception. */
  add(count: number | null, code: string): void {
    this.#cells.push({ count, code });
    if (this.#cells.length > KEPT) this.#cells.shift();
  }

  /** The kernel restarted: its execution counts start again. */
  clear(): void {
    this.#cells.length = 0;
  }

  /** The code of the cells `refs` names, in the order given, joined by blank lines. */
  code(refs: readonly number[]): string {
    return refs.map((ref) => this.#cell(ref).code.trimEnd()).join('\n\n');
  }

  #cell(ref: number): Cell {
    const found =
      ref < 0 ? this.#cells.at(ref) : this.#cells.findLast((cell) => cell.count === ref);
    if (found !== undefined && Number.isInteger(ref) && ref !== 0) return found;
    const counts = this.#cells.flatMap((cell) => (cell.count === null ? [] : [cell.count]));
    const known =
      counts.length === 0
        ? 'no cell has worked in this kernel yet (since it started or was reset)'
        : `cells that worked: ${counts.join(', ')} (or -1 for the last, -2 for the one before, ...)`;
    throw new RangeError(`no cell ${ref} that worked in this kernel: ${known}`);
  }
}
