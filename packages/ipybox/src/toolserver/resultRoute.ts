/**
 * `POST /result {handle}`: kernel code reading the whole of a tool result the model saw as a
 * preview (`mcptools.results.load`, `python/results.py`). The result is opened as the caller of
 * the cell running now — the same key the host's result store kept it under — through the host's
 * catalog (`CatalogView.openResult`), whose store alone decides whose a result is. Nothing here
 * or in Python decides ownership: with no cell running there is no caller, and the read is
 * refused.
 *
 * The reply is data like `/run`'s: `{result: {kind, tool, bytes, text, truncated?}}` or
 * `{error, type: 'result_unavailable' | 'bad_request'}`.
 *
 * @module
 */
import { errorMessage, type StoredResult, type ToolContext } from '@mcpbox/framework';

/** Opens a stored result for the caller of a cell (`CatalogView.openResult`). */
export type OpenResult = (
  handle: string,
  caller: ToolContext,
) => Promise<{ meta: StoredResult; text: string }>;

/** Opens a stored result as whoever runs the current cell. */
export type OpenCellResult = (handle: string) => Promise<{ meta: StoredResult; text: string }>;

/** A refusal the reply carries as it is (the store's own words, or why there is no caller). */
class ResultRefused extends Error {}

/** The store's refusals (unknown, another caller's, expired, dropped) and ours: meant for users. */
function isRefusal(error: unknown): boolean {
  return (
    error instanceof ResultRefused || (error as { code?: unknown }).code === 'RESULT_UNAVAILABLE'
  );
}

/** `open` bound to the cell running now (`cell()`, undefined between cells). */
export function cellResults(
  open: OpenResult | undefined,
  cell: () => ToolContext | undefined,
): OpenCellResult {
  return async (handle) => {
    if (open === undefined) {
      throw new ResultRefused(
        `No stored result "${handle}": this server keeps no results by reference (it runs without the mcpbox catalog).`,
      );
    }
    const caller = cell();
    if (caller === undefined) {
      throw new ResultRefused(
        `No stored result "${handle}" read: no cell of this kernel is running, so there is no caller to read it as. Load results from the code of a running cell.`,
      );
    }
    return open(handle, caller);
  };
}

/** Answers one `POST /result` body. */
export async function readResult(
  open: OpenCellResult,
  body: string,
): Promise<{ status: number; body: unknown }> {
  let handle: unknown;
  try {
    handle = (JSON.parse(body) as { handle?: unknown } | null)?.handle;
  } catch {
    handle = undefined;
  }
  if (typeof handle !== 'string' || handle.trim() === '') {
    return {
      status: 400,
      body: {
        error: 'expected {"handle": "<id or results:// link>"} as the request body',
        type: 'bad_request',
      },
    };
  }
  try {
    const { meta, text } = await open(handle);
    const { kind, tool, bytes, truncated } = meta;
    return { status: 200, body: { result: { kind, tool, bytes, text, truncated } } };
  } catch (error) {
    // The store's refusals (unknown, another caller's, expired, dropped) and ours carry a message
    // meant for the user; anything else is the store failing (e.g. Redis down), said as such.
    return {
      status: 200,
      body: {
        error: isRefusal(error)
          ? errorMessage(error)
          : `the result store failed reading "${handle}": ${errorMessage(error)}`,
        type: 'result_unavailable',
      },
    };
  }
}

/**
 * `results.load(handle)` of code mode's JavaScript: the stored result as JSON text to parse (a
 * text result as a JSON string); a refusal rejects as `ResultUnavailable` with the same words.
 */
export async function resultAsJson(open: OpenCellResult, handle: string): Promise<string> {
  try {
    const { meta, text } = await open(handle);
    return meta.kind === 'json' ? text : JSON.stringify(text);
  } catch (error) {
    if (!isRefusal(error)) throw error;
    throw Object.assign(new Error(errorMessage(error)), { name: 'ResultUnavailable' });
  }
}
