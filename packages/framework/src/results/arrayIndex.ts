/**
 * Where each item of a stored top-level JSON array starts, found by one scan of the text without
 * building the value: a page then parses only its own items. Parsing the whole of a 10 MB result
 * for every page of 100 would take most of a second and several times its size in heap; the
 * index is 4 bytes per item, and the last few are kept per process (a body never changes under
 * its id, so an index never goes stale).
 *
 * @module
 */

export interface ArrayIndex {
  /** Offset of each item's first character. */
  readonly starts: Uint32Array;
  /** Offset of the closing `]`. */
  readonly end: number;
}

const KEPT = 16;
const cache = new Map<string, ArrayIndex | null>();

const isSpace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;

/** The items' offsets of `text` if it is a JSON array (and well formed at the top level). */
function scan(text: string): ArrayIndex | undefined {
  let i = 0;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  if (text.charCodeAt(i) !== 91) return undefined; // not '['
  const starts: number[] = [];
  let depth = 0;
  let inString = false;
  let expectItem = true;
  for (i++; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // a backslash escapes the next character
      else if (c === 34) inString = false;
      continue;
    }
    if (isSpace(c)) continue;
    if (depth === 0) {
      if (c === 93) return { starts: Uint32Array.from(starts), end: i };
      if (c === 44) {
        expectItem = true;
        continue;
      }
      if (expectItem) {
        starts.push(i);
        expectItem = false;
      }
    }
    if (c === 34) inString = true;
    else if (c === 91 || c === 123) depth++;
    else if (c === 93 || c === 125) depth--;
  }
  return undefined;
}

/** The index of the stored result `id` (whose body is `text`), if it is an array. */
export function arrayIndexOf(id: string, text: string): ArrayIndex | undefined {
  let index = cache.get(id);
  if (index === undefined) {
    index = scan(text) ?? null;
    if (cache.size >= KEPT) cache.delete(cache.keys().next().value as string);
  } else cache.delete(id);
  cache.set(id, index); // most recently used last
  return index ?? undefined;
}

/** Items `[from, to)` of the indexed array, parsed. */
export function itemsOf(text: string, index: ArrayIndex, from: number, to: number): unknown[] {
  if (from >= to) return [];
  let end = to < index.starts.length ? index.starts[to]! : index.end;
  // Back over the comma (and spaces) before the next item.
  while (end > 0 && (isSpace(text.charCodeAt(end - 1)) || text.charCodeAt(end - 1) === 44)) end--;
  return JSON.parse(`[${text.slice(index.starts[from], end)}]`) as unknown[];
}
