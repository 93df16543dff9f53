/**
 * Turning params and results into bounded, redacted text for the loggers.
 *
 * @module
 */
import { redactParams, redactText, redactValue } from './redact.ts';

/** Cuts `text` to `max` characters, saying how much was cut. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (+${text.length - max} chars)`;
}

/** Redacted params with every string cut to `maxString` characters (structure kept for JSON). */
export function boundedParams(tool: string, params: unknown, maxString: number): unknown {
  const cut = (v: unknown): unknown => {
    if (typeof v === 'string') return truncate(v, maxString);
    if (Array.isArray(v)) return v.map(cut);
    if (v !== null && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).map(([k, inner]) => [k, cut(inner)]));
    }
    return v;
  };
  return cut(redactParams(tool, params));
}

/** JSON text of redacted params, for one-line and Markdown logs. */
export function paramsText(tool: string, params: unknown): string {
  return safeJson(redactParams(tool, params ?? {}));
}

/**
 * Readable, redacted text of a tool result: a string as is, a `CallToolResult` as its text blocks
 * (other blocks named by type), anything else as JSON.
 */
export function resultText(result: unknown): string {
  if (typeof result === 'string') return redactText(result);
  if (result instanceof Error) return redactText(result.message);
  if (
    result !== null &&
    typeof result === 'object' &&
    Array.isArray((result as { content?: unknown }).content)
  ) {
    const { content, structuredContent } = result as {
      content: unknown[];
      structuredContent?: unknown;
    };
    const parts = content.map((block) => {
      const b = block as { type?: unknown; text?: unknown };
      return b.type === 'text' && typeof b.text === 'string'
        ? redactText(b.text)
        : `[${String(b.type)}]`;
    });
    if (parts.length === 0 && structuredContent !== undefined) {
      return safeJson(redactValue(structuredContent));
    }
    return parts.join('\n');
  }
  return safeJson(redactValue(result));
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
