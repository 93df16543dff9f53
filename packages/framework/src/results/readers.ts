/**
 * How a client reads the rest of a stored result: the `results://<id>` resource template (paged
 * with `?offset=&limit=`, at a JSON Pointer with `?pointer=`) and the `results_query` tool
 * (JSONPath over JSON, grep over text). Both open the result through the store as the caller
 * (`resultOwner`), so neither reads another caller's result.
 *
 * @module
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  ResourceNotFoundError,
  ResourceTemplate,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { toolError } from '../catalog/toolCalls.ts';
import type { PluginServer } from '../contract/plugin.ts';
import type { ToolContext } from '../contract/tool.ts';
import type { GateCallContext } from '../gate/caller.ts';
import {
  RESULTS_QUERY_TOOL,
  RESULTS_SCHEME,
  type ResultKeeper,
  resultIdOf,
  resultOwner,
} from './keeper.ts';
import { BadResultQueryError, DEFAULT_PAGE, MAX_PAGE, page, query, type Slice } from './reading.ts';
import { type ResultStore, ResultUnavailableError } from './store.ts';

/** A whole number from a query parameter; undefined when absent. */
function numberParam(params: URLSearchParams, name: string): number | undefined {
  const raw = params.get(name);
  if (raw === null || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n))
    throw new BadResultQueryError(`${name} must be a whole number, got "${raw}"`);
  return n;
}

/** Trims a slice's items until its JSON fits `maxChars`; the next page starts after them. */
function fitted(slice: Slice, maxChars: number): string {
  let text = JSON.stringify(slice);
  const items = [...slice.items];
  while (text.length > maxChars && items.length > 1) {
    items.length = Math.max(1, Math.floor(items.length / 2));
    text = JSON.stringify({ ...slice, items, next_offset: slice.offset + items.length });
  }
  return text;
}

async function readResource(
  store: ResultStore,
  uri: URL,
  ctx: GateCallContext,
): Promise<ReadResourceResult> {
  const id = `${uri.host}${uri.pathname}`;
  try {
    const { meta, text } = await store.open(resultOwner(ctx), id);
    const slice = page(meta, text, {
      pointer: uri.searchParams.get('pointer') ?? undefined,
      offset: numberParam(uri.searchParams, 'offset'),
      limit: numberParam(uri.searchParams, 'limit'),
    });
    return {
      contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(slice) }],
    };
  } catch (error) {
    if (error instanceof ResultUnavailableError)
      throw new ResourceNotFoundError(uri.href, error.message);
    if (error instanceof BadResultQueryError) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `${uri.href}: ${error.message}`);
    }
    throw error;
  }
}

const queryInput = {
  handle: z
    .string()
    .describe(
      `The stored result's handle (the id in its ${RESULTS_SCHEME}<id> link), or that link`,
    ),
  jsonpath: z
    .string()
    .optional()
    .describe(
      'For JSON: a JSONPath selecting what to return, e.g. "$[0:10]", "$..id", "$[?(@.price > 10)].name"',
    ),
  grep: z
    .string()
    .optional()
    .describe('For text (or JSON shown as lines): the lines containing this text'),
  offset: z.number().int().min(0).optional().describe('Skip this many matches (paging); default 0'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_PAGE)
    .optional()
    .describe(`Return at most this many matches; default ${DEFAULT_PAGE}`),
};

/** Registers the reading resource and tool over `keeper`'s store. */
export function registerResultReaders(
  server: Pick<PluginServer, 'registerTool' | 'registerResource'>,
  keeper: ResultKeeper,
): void {
  const { store, answerChars } = keeper;
  server.registerResource(
    'stored_result',
    // `{+id}`: the query (a JSON Pointer's slashes) is part of the match; the handler reads it.
    new ResourceTemplate(`${RESULTS_SCHEME}{+id}`, { list: undefined }),
    {
      description:
        "A tool result too large to show whole, kept for its caller. Paged JSON: ?offset=0&limit=100 (an array's items, an object's keys, a text's lines), ?pointer=/items to page the value at a JSON Pointer.",
      mimeType: 'application/json',
    },
    (uri: URL, _variables: unknown, ctx: GateCallContext) => readResource(store, uri, ctx),
  );
  server.registerTool(
    RESULTS_QUERY_TOOL,
    {
      description:
        'Select part of a stored tool result (one the model saw as a preview): JSONPath over JSON, or the lines containing a text. Answers {total, offset, limit, next_offset, items}.',
      inputSchema: queryInput,
      annotations: { readOnlyHint: true },
    },
    async (
      args: { handle: string; jsonpath?: string; grep?: string; offset?: number; limit?: number },
      ctx: ToolContext,
    ) => {
      try {
        const { meta, text } = await store.open(resultOwner(ctx), resultIdOf(args.handle));
        return fitted(query(meta, text, args), answerChars);
      } catch (error) {
        if (error instanceof ResultUnavailableError || error instanceof BadResultQueryError) {
          return toolError(error.message);
        }
        throw error;
      }
    },
  );
}
