/**
 * Removes secrets from what the tool-call loggers write. Every logger runs its params and results
 * through `redactParams` / `redactValue` before formatting, so no logger can forget.
 *
 * @module
 */

export const REDACTED = '[REDACTED]';

/** Keys whose values are never logged, at any depth (case-insensitive, substring match). */
const SENSITIVE_KEY =
  /token|password|passwd|secret|api[_-]?key|private[_-]?key|authorization|cookie|credential/i;

/**
 * Tools with an argument that is sensitive although its name is ordinary: the gate's one-time
 * code. Matched on the name's end, so a prefixed copy (`plugin_gate_unlock`) is covered too.
 */
const SENSITIVE_ARGS_BY_TOOL_SUFFIX: ReadonlyArray<[suffix: string, keys: readonly string[]]> = [
  ['gate_unlock', ['code']],
];

/** `Bearer abc…` inside free text (an echoed header, an error message). */
const BEARER_IN_TEXT = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi;

const MAX_DEPTH = 20;

/** Redacts a string's embedded credentials. */
export function redactText(text: string): string {
  return text.replace(BEARER_IN_TEXT, `$1 ${REDACTED}`);
}

/**
 * A deep copy of `value` with values under sensitive keys replaced by `[REDACTED]`. Handles
 * cycles and depth; never throws.
 */
export function redactValue(value: unknown, extraKeys: readonly string[] = []): unknown {
  const extra = new Set(extraKeys.map((k) => k.toLowerCase()));
  const seen = new WeakSet<object>();
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') return redactText(v);
    if (v === null || typeof v !== 'object') return v;
    if (seen.has(v)) return '[Circular]';
    if (depth >= MAX_DEPTH) return '[Too deep]';
    seen.add(v);
    if (Array.isArray(v)) return v.map((item) => walk(item, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(v)) {
      out[key] =
        SENSITIVE_KEY.test(key) || extra.has(key.toLowerCase()) ? REDACTED : walk(inner, depth + 1);
    }
    return out;
  };
  try {
    return walk(value, 0);
  } catch {
    return REDACTED;
  }
}

/** Redacts a call's arguments, including the arguments sensitive only for this tool. */
export function redactParams(tool: string, params: unknown): unknown {
  const extra = SENSITIVE_ARGS_BY_TOOL_SUFFIX.filter(([suffix]) => tool.endsWith(suffix)).flatMap(
    ([, keys]) => keys,
  );
  return redactValue(params, extra);
}
