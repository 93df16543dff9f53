/**
 * Shaping a cell's text for a model's context window: carriage-return progress lines collapsed to
 * what a terminal would show, and long text cut in the middle so both its start and its end
 * (where the final numbers and the error usually are) stay visible.
 *
 * @module
 */

/**
 * What a terminal shows for `text`: within each line, a `\r` moves back to the line's start and
 * what follows overwrites what was there (tqdm and pip redraw their bars this way, thousands of
 * times per cell). `\r\n` is an ordinary line end.
 */
export function collapseCarriageReturns(text: string): string {
  if (!text.includes('\r')) return text;
  return text
    .replace(/\r+\n/g, '\n')
    .split('\n')
    .map((line) => {
      if (!line.includes('\r')) return line;
      let shown = '';
      for (const segment of line.split('\r')) shown = segment + shown.slice(segment.length);
      return shown;
    })
    .join('\n');
}

/** What {@link cutMiddle} removed. */
export interface Cut {
  /** The kept start and end of the text. */
  head: string;
  tail: string;
  /** Characters and lines removed between head and tail. */
  chars: number;
  lines: number;
}

/**
 * Keeps about `max` characters of `text`: a head (`headShare` of them) and a tail (the rest), cut
 * at line boundaries when one is near, so no line is shown half. Undefined when `text` fits.
 */
export function cutMiddle(text: string, max: number, headShare = 0.4): Cut | undefined {
  if (text.length <= max) return undefined;
  const headBudget = Math.floor(max * headShare);
  let headEnd = headBudget;
  // Back to the last line end in the head's second half (the whole head when there is none).
  const lastNewline = text.lastIndexOf('\n', headBudget - 1);
  if (lastNewline >= headBudget / 2) headEnd = lastNewline + 1;
  let tailStart = text.length - (max - headBudget);
  const nextNewline = text.indexOf('\n', tailStart);
  if (nextNewline !== -1 && nextNewline < tailStart + (max - headBudget) / 2) {
    tailStart = nextNewline + 1;
  }
  if (tailStart < headEnd) tailStart = headEnd;
  const removed = text.slice(headEnd, tailStart);
  return {
    head: text.slice(0, headEnd),
    tail: text.slice(tailStart),
    chars: removed.length,
    lines: countLines(removed),
  };
}

/** Lines touched by `text` (a partial line counts). */
function countLines(text: string): number {
  if (text === '') return 0;
  let lines = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < text.length - 1; i = text.indexOf('\n', i + 1)) {
    lines += 1;
  }
  return lines;
}

/** `1234567` as `1,234,567`. */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}
