/**
 * The decision the tool-call dispatcher asks of every result it hands a client: pass it whole, or
 * store it and answer with a preview, its size, a `resource_link` to `results://<id>` and the
 * handle in `_meta` (`io.mcpbox/result`). Calls from code never come here: they get the whole
 * result (`ToolCallDispatcher.call`).
 *
 * Passed whole: results within the limits, errors, task handles, results with images, audio or
 * embedded resources (binary content stays as it was), and results of tools with an output schema
 * (a client validates `structuredContent` against it, so it cannot be replaced by a preview).
 *
 * @module
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ToolContext } from '../contract/tool.ts';
import { callerKeyOf, type GateCallContext } from '../gate/caller.ts';
import { describeSize, previewJson, previewText } from './preview.ts';
import {
  DEFAULT_MAX_CHARS,
  limitsFor,
  type PreviewLimits,
  type ResultPreviewSettings,
} from './settings.ts';
import type { ResultKind, ResultStore, StoredResult } from './store.ts';

/** The key of a result's `_meta` naming its stored whole. */
export const RESULT_META_KEY = 'io.mcpbox/result';
export const RESULTS_SCHEME = 'results://';
export const RESULTS_QUERY_TOOL = 'results_query';

/**
 * The id a caller names a stored result by: the handle itself, or its `results://<id>` link as
 * the model saw it (a page's `?offset=…` or a `#…` dropped). Anything else is passed on as it is,
 * for the store to refuse like any unknown handle.
 */
export function resultIdOf(handleOrLink: string): string {
  const text = handleOrLink.trim();
  if (!text.startsWith(RESULTS_SCHEME)) return text;
  return text.slice(RESULTS_SCHEME.length).split(/[?#]/, 1)[0] ?? '';
}

/**
 * Whose a stored result is: the framework's caller key (the OAuth principal or API key, else the
 * 2025 session, else the connection), or one shared key for a caller with none (a 2026 HTTP
 * request without authentication, where the 128-bit handle is all that guards it).
 */
export function resultOwner(ctx: GateCallContext): string {
  return callerKeyOf(ctx) ?? 'anonymous';
}

/** What a result would put into the model's context, in characters and UTF-8 bytes. */
function measure(result: CallToolResult): { chars: number; bytes: number; text: string[] } {
  const text: string[] = [];
  for (const block of result.content ?? []) if (block.type === 'text') text.push(block.text);
  const structured =
    result.structuredContent === undefined ? '' : JSON.stringify(result.structuredContent);
  const all = [...text, structured];
  return {
    chars: all.reduce((n, t) => n + t.length, 0),
    bytes: all.reduce((n, t) => n + Buffer.byteLength(t), 0),
    text,
  };
}

function over(limits: PreviewLimits, size: { chars: number; bytes: number }): boolean {
  return (
    (limits.maxChars !== undefined && size.chars > limits.maxChars) ||
    (limits.maxBytes !== undefined && size.bytes > limits.maxBytes)
  );
}

/** The body to keep: structured content whole, else the text (JSON when it parses as JSON). */
function bodyOf(
  result: CallToolResult,
  text: string[],
): { kind: ResultKind; text: string; value?: unknown } {
  if (result.structuredContent !== undefined) {
    return {
      kind: 'json',
      text: JSON.stringify(result.structuredContent),
      value: result.structuredContent,
    };
  }
  const joined = text.join('\n');
  if (text.length === 1 && /^\s*[[{]/.test(joined)) {
    try {
      return { kind: 'json', text: joined, value: JSON.parse(joined) };
    } catch {
      // Not JSON after all: kept as text.
    }
  }
  return { kind: 'text', text: joined };
}

/** A body over the store's cap: the items (or lines) that fit, and why it was cut. */
function capped(
  body: ReturnType<typeof bodyOf>,
  cap: number,
): ReturnType<typeof bodyOf> & { truncated?: string } {
  const bytes = Buffer.byteLength(body.text);
  if (bytes <= cap) return body;
  const why = (kept: string) =>
    `TRUNCATED: the result is ${describeSize(bytes)}, over the store's cap of ${describeSize(cap)} (result_preview.max_result_bytes); ${kept}`;
  if (Array.isArray(body.value)) {
    const items: string[] = [];
    let used = 2;
    for (const item of body.value) {
      const json = JSON.stringify(item) ?? 'null';
      if (used + json.length + 1 > cap) break;
      items.push(json);
      used += json.length + 1;
    }
    const text = `[${items.join(',')}]`;
    return {
      kind: 'json',
      text,
      truncated: why(`kept the first ${items.length} of ${body.value.length} items`),
    };
  }
  let text = Buffer.from(body.text).subarray(0, cap).toString('utf8');
  const line = text.lastIndexOf('\n');
  if (line > 0) text = text.slice(0, line + 1);
  return {
    kind: 'text',
    text,
    truncated: why(`kept the first ${describeSize(Buffer.byteLength(text))} as text`),
  };
}

export class ResultKeeper {
  readonly #settings: ResultPreviewSettings;
  readonly #store: ResultStore;

  constructor(settings: ResultPreviewSettings, store: ResultStore) {
    this.#settings = settings;
    this.#store = store;
  }

  get store(): ResultStore {
    return this.#store;
  }

  /** The most characters one answer of `results_query` holds (the top-level limit). */
  get answerChars(): number {
    return this.#settings.limits.maxChars ?? DEFAULT_MAX_CHARS;
  }

  /** `result` as the model should receive it: whole, or a preview of its stored whole. */
  async keep(
    result: CallToolResult,
    call: { tool: string; plugin: string; hasOutputSchema: boolean; ctx: ToolContext },
  ): Promise<CallToolResult> {
    const limits = limitsFor(this.#settings, call.plugin, call.tool);
    if (limits === false || result.isError || call.hasOutputSchema) return result;
    if ((result as { resultType?: unknown }).resultType === 'task') return result;
    if ((result.content ?? []).some((block) => block.type !== 'text')) return result;
    const size = measure(result);
    if (!over(limits, size)) return result;
    const body = capped(bodyOf(result, size.text), this.#settings.maxResultBytes);
    const stored = await this.#store.put(resultOwner(call.ctx), {
      tool: call.tool,
      kind: body.kind,
      text: body.text,
      originalBytes: size.bytes,
      truncated: 'truncated' in body ? body.truncated : undefined,
    });
    const value = body.kind === 'json' ? (body.value ?? JSON.parse(body.text)) : undefined;
    const shape = body.kind === 'json' ? previewJson(value) : previewText(body.text);
    return previewResult(stored, shape, result._meta);
  }
}

/** The model-facing result: the preview, how to read the rest, the link and the handle. */
function previewResult(
  stored: StoredResult,
  shape: string,
  meta: CallToolResult['_meta'],
): CallToolResult {
  const uri = `${RESULTS_SCHEME}${stored.id}`;
  const how =
    stored.kind === 'json'
      ? `Read the rest: the resource ${uri}?offset=0&limit=100 (pages of an array, or of the value at ?pointer=/a/b), or the ${RESULTS_QUERY_TOOL} tool with handle "${stored.id}" and a JSONPath (e.g. "$[0:10]", "$..id").`
      : `Read the rest: the resource ${uri}?offset=0&limit=100 (lines), or the ${RESULTS_QUERY_TOOL} tool with handle "${stored.id}" and grep or offset/limit.`;
  const text = [
    `The result of ${stored.tool} is ${describeSize(stored.originalBytes)}, too large to show whole; it is stored as ${uri} until ${new Date(stored.expiresAt).toISOString()}.`,
    ...(stored.truncated ? [stored.truncated] : []),
    shape,
    how,
  ].join('\n');
  return {
    content: [
      { type: 'text', text },
      {
        type: 'resource_link',
        uri,
        name: `result-${stored.id}`,
        description: `The whole result of ${stored.tool}`,
        mimeType: stored.kind === 'json' ? 'application/json' : 'text/plain',
        size: stored.bytes,
      },
    ],
    _meta: {
      ...meta,
      [RESULT_META_KEY]: {
        handle: stored.id,
        uri,
        kind: stored.kind,
        bytes: stored.bytes,
        expiresAt: new Date(stored.expiresAt).toISOString(),
        ...(stored.truncated ? { truncated: true } : {}),
      },
    },
  };
}
