/**
 * What the model sees of a stored result: a summary that follows its shape, not a byte cut — the
 * first items of an array, the top-level keys of an object with the size of each value, the first
 * lines of a text. About {@link BUDGET} characters, so the preview and its link stay under 2 KB.
 *
 * @module
 */

const BUDGET = 1400;
/** One item or line is cut here, so one long item cannot take the whole budget. */
const ITEM_CHARS = 400;
const SCALAR_CHARS = 80;

/** `5.0 MB`, `1.2 KB`, `512 B`. */
export function describeSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${bytes} B`;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Lines under a heading, added while they fit the budget; says how many were left out. */
function fitted(heading: (shown: number) => string, lines: Iterable<string>, total: number) {
  const shown: string[] = [];
  let used = 0;
  for (const line of lines) {
    if (shown.length > 0 && used + line.length > BUDGET) break;
    shown.push(line);
    used += line.length + 1;
  }
  const more = total - shown.length;
  return [heading(shown.length), ...shown, ...(more > 0 ? [`… ${more} more`] : [])].join('\n');
}

/** A value in one line: scalars as they are (cut), containers as their kind and size. */
function summary(value: unknown): string {
  if (Array.isArray(value)) {
    return `array of ${plural(value.length, 'item')} (${describeSize(jsonBytes(value))})`;
  }
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).length;
    return `object with ${plural(keys, 'key')} (${describeSize(jsonBytes(value))})`;
  }
  return clip(JSON.stringify(value) ?? 'null', SCALAR_CHARS);
}

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '');
}

function* itemLines(items: readonly unknown[]): Generator<string> {
  for (const item of items) yield `  ${clip(JSON.stringify(item) ?? 'null', ITEM_CHARS)}`;
}

function* keyLines(object: Record<string, unknown>): Generator<string> {
  for (const [key, value] of Object.entries(object)) {
    yield `  ${JSON.stringify(key)}: ${summary(value)}`;
  }
}

/** The shape-aware summary of a JSON value. */
export function previewJson(value: unknown): string {
  if (Array.isArray(value)) {
    return fitted(
      (shown) => `JSON array of ${plural(value.length, 'item')}; the first ${shown}:`,
      itemLines(value),
      value.length,
    );
  }
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).length;
    return fitted(
      () => `JSON object with ${plural(keys, 'key')} (value sizes in JSON):`,
      keyLines(value as Record<string, unknown>),
      keys,
    );
  }
  return `JSON ${typeof value}: ${clip(JSON.stringify(value) ?? 'null', BUDGET)}`;
}

function* textLines(text: string, count: number): Generator<string> {
  let start = 0;
  for (let i = 0; i < count; i++) {
    const end = text.indexOf('\n', start);
    yield clip(text.slice(start, end < 0 ? undefined : end), 200);
    if (end < 0) return;
    start = end + 1;
  }
}

/** Lines of `text` (a final newline ends the last line, it does not start another). */
export function lineCount(text: string): number {
  let n = text.length === 0 || text.endsWith('\n') ? 0 : 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** The first lines of a text. */
export function previewText(text: string): string {
  const lines = lineCount(text);
  return fitted(
    (shown) => `Text of ${plural(lines, 'line')}; the first ${shown}:`,
    textLines(text, 40),
    lines,
  );
}
