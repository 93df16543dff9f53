/**
 * The plugin's logic, free of MCP: plain functions that tests and other code can call directly.
 * Keeping this apart from `index.ts` (the MCP wiring) is the layout we recommend for plugins.
 */

export interface TextStats {
  characters: number;
  words: number;
  lines: number;
  /** The most frequent words (lower-cased), most frequent first, at most five. */
  top_words: Array<{ word: string; count: number }>;
}

export function textStats(text: string): TextStats {
  const words = text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];
  const counts = new Map<string, number>();
  for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
  const top_words = [...counts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, 5)
    .map(([word, count]) => ({ word, count }));
  return {
    characters: text.length,
    words: words.length,
    lines: text === '' ? 0 : text.split('\n').length,
    top_words,
  };
}
