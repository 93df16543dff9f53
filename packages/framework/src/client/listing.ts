/**
 * Paged listing of an upstream's tools, resources, templates or prompts: follows `nextCursor`
 * until the last page, and stops on a repeated cursor or after {@link MAX_PAGES} pages, so that a
 * misbehaving server cannot keep a caller listing forever.
 *
 * @module
 */
import { UpstreamError } from './errors.ts';
import { asSent, type ResultSchema } from './resultShapes.ts';

const MAX_PAGES = 1000;

// Only what pagination needs is checked.
export const LoosePage: ResultSchema = asSent((page) =>
  page.nextCursor === undefined || typeof page.nextCursor === 'string'
    ? undefined
    : 'nextCursor: expected a string',
);

/**
 * Every item under `key` across the pages of `method`; `requestPage` sends one page's request
 * (with {@link LoosePage} as its schema).
 */
export async function listPages(
  name: string,
  method: string,
  key: string,
  requestPage: (params: { cursor?: string }) => Promise<unknown>,
): Promise<unknown[]> {
  const items: unknown[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const result = (await requestPage(cursor === undefined ? {} : { cursor })) as Record<
      string,
      unknown
    > & { nextCursor?: string };
    const found = result[key];
    if (!Array.isArray(found)) {
      throw new UpstreamError(
        'PROTOCOL_ERROR',
        `upstream '${name}' answered ${method} without a '${key}' array`,
      );
    }
    items.push(...found);
    cursor = result.nextCursor;
    // A server that repeats a cursor would otherwise keep us here forever.
    if (cursor === undefined || seen.has(cursor)) break;
    seen.add(cursor);
  }
  return items;
}
