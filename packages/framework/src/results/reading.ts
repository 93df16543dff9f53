/**
 * Slices of a stored result: a page (of an array's items, an object's keys or a text's lines,
 * optionally at a JSON Pointer), a JSONPath query over JSON (`jsonpath-plus`, its safe evaluator:
 * filter expressions cannot run code), a substring search over text lines.
 *
 * @module
 */
import { jsonPathPlus } from '../lazy.ts';
import { arrayIndexOf, itemsOf } from './arrayIndex.ts';
import type { StoredResult } from './store.ts';

export const DEFAULT_PAGE = 100;
export const MAX_PAGE = 1000;

export class BadResultQueryError extends Error {
  readonly code = 'BAD_RESULT_QUERY';
  constructor(message: string) {
    super(message);
    this.name = 'BadResultQueryError';
  }
}

export interface Window {
  offset?: number;
  limit?: number;
}

export interface Slice {
  handle: string;
  total: number;
  offset: number;
  limit: number;
  /** Where the next page starts; absent on the last. */
  next_offset?: number;
  items: unknown[];
  truncated?: string;
}

/** Items `[from, to)` of a sequence of `total`. */
interface Sequence {
  total: number;
  take(from: number, to: number): unknown[];
}

const listed = (all: readonly unknown[]): Sequence => ({
  total: all.length,
  take: (from, to) => all.slice(from, to),
});

function sliced(meta: StoredResult, all: Sequence, window: Window): Slice {
  const offset = window.offset ?? 0;
  const limit = window.limit ?? DEFAULT_PAGE;
  if (!Number.isInteger(offset) || offset < 0) {
    throw new BadResultQueryError(`offset must be a whole number 0 or more, got ${offset}`);
  }
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) {
    throw new BadResultQueryError(
      `limit must be a whole number from 1 to ${MAX_PAGE}, got ${limit}`,
    );
  }
  const end = Math.min(all.total, offset + limit);
  return {
    handle: meta.id,
    total: all.total,
    offset,
    limit,
    ...(end < all.total ? { next_offset: end } : {}),
    items: all.take(offset, end),
    ...(meta.truncated ? { truncated: meta.truncated } : {}),
  };
}

/** The value at an RFC 6901 JSON Pointer (`/items/0/name`; `~1` is `/`, `~0` is `~`). */
function atPointer(value: unknown, pointer: string): unknown {
  if (pointer === '' || pointer === '/') return value;
  if (!pointer.startsWith('/')) {
    throw new BadResultQueryError(
      `the JSON Pointer "${pointer}" must start with "/" (e.g. /items)`,
    );
  }
  let at = value;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (at === null || typeof at !== 'object' || !Object.hasOwn(at, key)) {
      throw new BadResultQueryError(
        `the JSON Pointer "${pointer}" names nothing in this result (no "${key}")`,
      );
    }
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

function lines(text: string): string[] {
  const all = text.split('\n');
  if (all.at(-1) === '') all.pop();
  return all;
}

/** A page of the result (or of the value at `pointer`). */
export function page(
  meta: StoredResult,
  text: string,
  window: Window & { pointer?: string },
): Slice {
  if (meta.kind === 'text') {
    if (window.pointer)
      throw new BadResultQueryError(
        'this result is text: page it by lines (offset, limit), without a pointer',
      );
    return sliced(meta, listed(lines(text)), window);
  }
  // The whole array (the usual page): only the page's items are parsed.
  const index = window.pointer ? undefined : arrayIndexOf(meta.id, text);
  if (index) {
    const take = (from: number, to: number) => itemsOf(text, index, from, to);
    return sliced(meta, { total: index.starts.length, take }, window);
  }
  const value = atPointer(JSON.parse(text), window.pointer ?? '');
  if (Array.isArray(value)) return sliced(meta, listed(value), window);
  if (value !== null && typeof value === 'object') {
    const keys = sliced(meta, listed(Object.entries(value)), window);
    return { ...keys, items: [Object.fromEntries(keys.items as [string, unknown][])] };
  }
  return sliced(meta, listed([value]), window);
}

/** The matches of a JSONPath (JSON) or the lines containing `grep` (text), a page of them. */
export function query(
  meta: StoredResult,
  text: string,
  ask: Window & { jsonpath?: string; grep?: string },
): Slice {
  if (meta.kind === 'text' || ask.grep !== undefined) {
    if (ask.jsonpath !== undefined) {
      throw new BadResultQueryError(
        meta.kind === 'text'
          ? 'this result is text: use grep or offset/limit, not a JSONPath'
          : 'give a jsonpath or grep, not both',
      );
    }
    const needle = ask.grep ?? '';
    return sliced(meta, listed(lines(text).filter((line) => line.includes(needle))), ask);
  }
  const path = ask.jsonpath ?? '$';
  if (!path.startsWith('$')) {
    throw new BadResultQueryError(
      `the JSONPath "${path}" must start with "$" (e.g. $.items[0:10], $..id)`,
    );
  }
  let matches: unknown[];
  try {
    matches = jsonPathPlus().JSONPath({
      path,
      json: JSON.parse(text) as object,
      eval: 'safe',
      wrap: true,
    }) as unknown[];
  } catch (error) {
    throw new BadResultQueryError(
      `the JSONPath "${path}" does not parse or cannot be evaluated: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return sliced(meta, listed(matches ?? []), ask);
}
