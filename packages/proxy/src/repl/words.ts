/**
 * Splits what follows a tool or prompt name into words, the way a shell would for the cases
 * people type: `"a b"` and `'a b'` are one word without their quotes, `city="New York"` is one
 * `key=value` word. A quote groups only where a shell user starts one (at the start of a word or
 * right after `=`), so an apostrophe inside a word (`don't`) stays a literal character.
 */

export interface Word {
  /** The word with its quotes removed. */
  text: string;
  /** The whitespace typed before it, so a bare value keeps the spacing it was typed with. */
  before: string;
  /** Set when the word is `key=value` with an unquoted key; `text` then holds the value. */
  key?: string;
}

export type SplitWords = { ok: true; words: Word[] } | { ok: false; error: string };

const KEY = /^[^\s="'\\]+$/;

export function splitWords(line: string): SplitWords {
  const words: Word[] = [];
  let i = 0;
  while (i < line.length) {
    const space = /^\s*/.exec(line.slice(i))![0];
    i += space.length;
    if (i >= line.length) break;
    const word: Word = { text: '', before: space };
    let quoted = false; // part of the word was quoted: `"a=b"` is a value, not key=value
    let atStart = true; // of the word, or of the value after `key=`
    while (i < line.length && !/\s/.test(line[i]!)) {
      const ch = line[i]!;
      if ((ch === '"' || ch === "'") && atStart) {
        const section = readQuoted(line, i);
        if (section === null) {
          return { ok: false, error: `unterminated ${ch} quote in: ${line.slice(i)}` };
        }
        word.text += section.text;
        i = section.end;
        quoted = true;
        atStart = false;
      } else if (ch === '=' && word.key === undefined && !quoted && KEY.test(word.text)) {
        word.key = word.text;
        word.text = '';
        i++;
        atStart = true;
      } else {
        word.text += ch;
        i++;
        atStart = false;
      }
    }
    words.push(word);
  }
  return { ok: true, words };
}

/**
 * Reads a quoted section starting at the quote `line[start]`. Single quotes keep everything;
 * inside double quotes `\"` and `\\` escape, other backslashes are literal (Windows paths).
 */
function readQuoted(line: string, start: number): { text: string; end: number } | null {
  const quote = line[start];
  let text = '';
  for (let i = start + 1; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === quote) return { text, end: i + 1 };
    if (quote === '"' && ch === '\\' && (line[i + 1] === '"' || line[i + 1] === '\\')) {
      text += line[i + 1];
      i++;
      continue;
    }
    text += ch;
  }
  return null;
}

/** The words joined back with the spacing typed between them, quotes removed. */
export function joinWords(words: Word[]): string {
  return words
    .map((w, i) => (i === 0 ? '' : w.before) + (w.key === undefined ? '' : `${w.key}=`) + w.text)
    .join('');
}
