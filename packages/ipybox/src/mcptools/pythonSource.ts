/**
 * Writing untrusted text into Python source safely: string literals, docstrings and identifiers.
 *
 * Everything a remote MCP server says about itself (tool names, descriptions, property names, enum
 * values) is untrusted. It reaches generated code only through the functions here, which produce
 * literals whose *value* is the original text and whose *source* cannot end the literal early,
 * start an escape sequence, or contain bytes Python refuses (NUL) or that hide code from a reader
 * (bidirectional overrides, CVE-2021-42574 "Trojan Source"). ipybox issue #43 was a description
 * breaking out of its docstring; this module is the fix.
 *
 * @module
 */

/** Python 3.11 hard keywords: never valid as identifiers (module names, attributes). */
const PYTHON_KEYWORDS = new Set([
  'False',
  'None',
  'True',
  'and',
  'as',
  'assert',
  'async',
  'await',
  'break',
  'class',
  'continue',
  'def',
  'del',
  'elif',
  'else',
  'except',
  'finally',
  'for',
  'from',
  'global',
  'if',
  'import',
  'in',
  'is',
  'lambda',
  'nonlocal',
  'not',
  'or',
  'pass',
  'raise',
  'return',
  'try',
  'while',
  'with',
  'yield',
]);

export function isPythonKeyword(name: string): boolean {
  return PYTHON_KEYWORDS.has(name);
}

/** Code points written as escapes even though Python would accept some of them raw. */
function needsEscape(codePoint: number): boolean {
  return (
    codePoint < 0x20 || // C0 controls: NUL is a SyntaxError, CR would be normalized to LF
    (codePoint >= 0x7f && codePoint <= 0x9f) || // DEL and C1 controls (U+0085 is a line break elsewhere)
    codePoint === 0x2028 ||
    codePoint === 0x2029 || // line and paragraph separators
    (codePoint >= 0x202a && codePoint <= 0x202e) || // bidi embeddings and overrides
    (codePoint >= 0x2066 && codePoint <= 0x2069) || // bidi isolates
    codePoint === 0x200e ||
    codePoint === 0x200f || // bidi marks
    codePoint === 0xfeff || // BOM / zero-width no-break space
    (codePoint >= 0xd800 && codePoint <= 0xdfff) // lone surrogates: not encodable as UTF-8
  );
}

function escapeCodePoint(codePoint: number): string {
  if (codePoint === 0x0a) return '\\n';
  if (codePoint === 0x09) return '\\t';
  if (codePoint === 0x0d) return '\\r';
  if (codePoint <= 0xff) return `\\x${codePoint.toString(16).padStart(2, '0')}`;
  return `\\u${codePoint.toString(16).padStart(4, '0')}`;
}

/**
 * Escapes `text` for the inside of a non-raw Python string literal delimited by `quote`.
 * Backslashes are doubled first, so no character of the input can start an escape sequence;
 * every `quote` character is escaped, so the literal cannot end early whatever its neighbours.
 * `keepNewlines` writes LF as a real line break (for readable docstrings in triple quotes).
 */
function escapeForLiteral(text: string, quote: '"' | "'", keepNewlines: boolean): string {
  let out = '';
  // Iterate by UTF-16 code unit so lone surrogates are seen (for…of would pair valid ones).
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        out += text[i] + text[i + 1]; // a valid pair: an ordinary astral character
        i++;
        continue;
      }
    }
    const ch = text[i]!;
    if (ch === '\\') out += '\\\\';
    else if (ch === quote && (!keepNewlines || i + 1 === text.length || text[i + 1] === quote)) {
      // In a triple-quoted literal a lone quote is harmless. One followed by another quote, or
      // last in the text (it would touch the closing quotes), is escaped: so no two raw quotes
      // are ever adjacent and the literal can only end where we end it.
      out += `\\${quote}`;
    } else if (ch === '\n' && keepNewlines) out += '\n';
    else if (needsEscape(unit)) out += escapeCodePoint(unit);
    else out += ch;
  }
  return out;
}

/** A single-line Python `str` literal whose value is exactly `text`. */
export function pyString(text: string): string {
  return `'${escapeForLiteral(text, "'", false)}'`;
}

/**
 * A triple-quoted docstring literal for `text`. With no `indent` its value is exactly `text`;
 * with one, `indent` is added after each newline (not on empty lines) for readability, and
 * `inspect.cleandoc`/`help()` strip it again. Quote escaping: see `escapeForLiteral`.
 */
export function pyDocstring(text: string, indent = ''): string {
  const body = escapeForLiteral(text, '"', true).replace(/\n(?=[^\n])/g, `\n${indent}`);
  return `"""${body}"""`;
}

/** A Python literal for a JSON value (for `Literal[...]` members and constants). */
export function pyLiteral(value: unknown): string {
  if (value === null) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'string') return pyString(value);
  if (typeof value === 'number' && Number.isInteger(value)) return String(value);
  throw new TypeError(`no Python literal for ${typeof value}`);
}

/** Whether a JSON value can be a member of `typing.Literal` (PEP 586: str, int, bool, None). */
export function isLiteralValue(value: unknown): boolean {
  return (
    value === null ||
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isSafeInteger(value))
  );
}

/**
 * A lowercase ASCII identifier derived from `name`: not a keyword, not starting with a digit or
 * an underscore (so never `__init__` or a private name), at most `maxLength` characters.
 * Uniqueness is the caller's job (see {@link uniqueIdentifiers}).
 */
export function toIdentifier(name: string, { fallback = 'tool', maxLength = 64 } = {}): string {
  let id = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, maxLength)
    .replace(/_+$/g, '');
  if (id === '') id = fallback;
  if (/^[0-9]/.test(id)) id = `${fallback}_${id}`;
  if (isPythonKeyword(id)) id = `${id}_`;
  return id;
}

/**
 * Identifiers for a list of names, in order, made unique by numeric suffixes (`name_2`, …) and
 * kept clear of `reserved`. Deterministic: the same input always yields the same modules.
 */
export function uniqueIdentifiers(
  names: readonly string[],
  options: { fallback?: string; reserved?: Iterable<string> } = {},
): string[] {
  const taken = new Set(options.reserved ?? []);
  return names.map((name) => {
    const base = toIdentifier(name, { fallback: options.fallback });
    let id = base;
    for (let n = 2; taken.has(id); n++) id = `${base}_${n}`;
    taken.add(id);
    return id;
  });
}

/** PascalCase identifier for a generated type name (`Params_Filter` style parts are joined). */
export function toTypeName(name: string): string {
  const parts = name.split(/[^A-Za-z0-9]+/).filter(Boolean);
  let id = parts.map((p) => p[0]!.toUpperCase() + p.slice(1)).join('');
  if (id === '' || /^[0-9]/.test(id)) id = `T${id}`;
  return id;
}
