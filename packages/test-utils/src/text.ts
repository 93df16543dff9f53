/**
 * The text of a tool result, for assertions: every text item joined, or the first content
 * block's. Typed loosely (`unknown`) so a result of either era's client, or a raw JSON-RPC
 * answer, can be passed as it is.
 *
 * @module
 */

type Content = { type?: string; text?: string }[];

/** The text items of a tool result, joined with newlines. */
export function textOf(result: unknown): string {
  return ((result as { content?: Content }).content ?? [])
    .filter((item) => item.type === 'text')
    .map((item) => item.text ?? '')
    .join('\n');
}

/** The text of the first content block of a tool result (`''` when it has none). */
export function firstText(result: unknown): string {
  const content = (result as { content?: Content }).content ?? [];
  return content[0]?.text ?? '';
}
