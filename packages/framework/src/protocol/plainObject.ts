/**
 * The test every JSON-RPC reader here makes of `params`, `_meta`, a result or a content block:
 * a JSON object, not `null` and not an array.
 *
 * @module
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
