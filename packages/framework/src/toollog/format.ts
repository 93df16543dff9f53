/**
 * Turning params and results into bounded, redacted text for the loggers. Called while a batch
 * is written, in the background.
 *
 * @module
 */
import type { Redactor } from './redact.ts';
import type { CallDetails } from './types.ts';

/** Cuts `text` to `max` characters, saying how much was cut. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (+${text.length - max} chars)`;
}

/** Redacted params with every string cut to `maxString` characters (structure kept for JSON). */
export function boundedParams(
  redactor: Redactor,
  tool: string,
  params: unknown,
  maxString: number,
): unknown {
  return redactor.params(tool, params ?? {}, maxString);
}

/** JSON text of redacted params cut to `max` characters, for one-line logs. */
export function paramsText(redactor: Redactor, tool: string, params: unknown, max: number): string {
  return truncate(safeJson(redactor.params(tool, params ?? {}, max)), max);
}

/**
 * Readable, redacted text of a tool result cut to `max` characters: a string as is, a
 * `CallToolResult` as its text blocks (other blocks named by type; the structured content when
 * there is no block), anything else as JSON.
 */
export function resultText(redactor: Redactor, result: unknown, max: number): string {
  if (typeof result === 'string') return redactor.text(result, max);
  if (result instanceof Error) return redactor.text(result.message, max);
  if (
    result !== null &&
    typeof result === 'object' &&
    Array.isArray((result as { content?: unknown }).content)
  ) {
    const { content, structuredContent } = result as {
      content: unknown[];
      structuredContent?: unknown;
    };
    if (content.length === 0 && structuredContent !== undefined) {
      return truncate(safeJson(redactor.value(structuredContent, max)), max);
    }
    const parts = content.map((block) => {
      const b = block as { type?: unknown; text?: unknown };
      return b.type === 'text' && typeof b.text === 'string' ? b.text : `[${String(b.type)}]`;
    });
    return redactor.text(parts.join('\n'), max);
  }
  return truncate(safeJson(redactor.value(result, max)), max);
}

/** Characters of a session id a log keeps: as many as the console shows. */
const SESSION_ID_CHARS = 8;

/**
 * The part of an MCP session id a log records: its first 8 characters, enough to tell sessions
 * apart and to match the console's `abcd1234…`, not enough to act as the session (whose id,
 * without OAuth, is all a caller needs to use its gate unlock).
 */
export function loggedSessionId(id: string): string {
  return id.slice(0, SESSION_ID_CHARS);
}

/**
 * ` session=… principal=… via=code`: who made the call and how, the parts that are known
 * (metadata, not redacted; the session id shortened by {@link loggedSessionId}).
 */
export function callerText(details: CallDetails | undefined): string {
  return (
    (details?.sessionId === undefined ? '' : ` session=${loggedSessionId(details.sessionId)}`) +
    (details?.principal === undefined ? '' : ` principal=${details.principal}`) +
    (details?.via === undefined ? '' : ` via=${details.via}`)
  );
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
