/**
 * What `name: value` pairs in free text reveal, decided pair by pair in the order of the text:
 *
 * - a value under a secret's name (`password: …`, `"api_key": "…"`, `--token=…`);
 * - in a sentence, what a password is said to be ("my password is …", "the passphrase was …");
 * - the `value` of a `{name, value}` record whose name is a secret's — JSON
 *   (`{"name": "DB_PASSWORD", "value": "…"}`, either order) or YAML (`- name: API_TOKEN` then
 *   `value: …`), `Key`/`Value` too;
 * - a one-time code or PIN typed anywhere (`code='461329'`, `"pin": "1234"`; see
 *   `isOneTimeCode`), such as a TOTP code in the source of a cell.
 *
 * @module
 */
import {
  isLabelField,
  isOneTimeCode,
  isSpokenSecretName,
  isValueField,
  type SecretNames,
} from './secretKeys.ts';

/** Part of the text, `start` included, `end` not. */
export interface Span {
  start: number;
  end: number;
}

/** How far apart a record's name and value may be (and how far ahead a value looks for its name). */
const RECORD_REACH = 256;

/** A `name` / `key` field seen, with what it names. */
interface Label {
  /** Where the field's value ends. */
  end: number;
  /** It names a secret. */
  secret: boolean;
  /** A value field has been matched with it already. */
  answered: boolean;
}

/** Ends an unquoted value: a line end or a character that closes the structure around it. */
const VALUE_END = /[\r\n,;&"'<>(){}[\]]/g;
/** A short scalar, quoted (also JSON-escaped) or bare: a field's label or a one-time code. */
const SHORT_VALUE =
  /\\?(["'])([^"'\\\r\n]{1,64})\\?\1|([A-Za-z0-9_.+-]{1,64}?)(?=\.?(?:[^A-Za-z0-9_.+-]|$))/y;
/** A quick test before the exact one, `isOneTimeCode`. */
const MAY_NAME_A_CODE = /code|pin/i;
/** How many pairs a value looks past for its name. */
const PAIRS_AHEAD = 4;
/** What ends a record, or separates its next pair, when looking ahead. */
const AHEAD = /[{}]|[:=]/g;
/** A sentence saying nothing secret about a password: "the password is required". */
const NOT_A_SECRET = new Set([
  'not',
  'required',
  'missing',
  'invalid',
  'incorrect',
  'wrong',
  'expired',
  'empty',
  'too',
  'unset',
  'needed',
]);

export class PairReader {
  readonly #text: string;
  readonly #names: SecretNames;
  #label: Label | undefined;
  /** A label a value ahead of it already answered (`{"value": …, "name": …}`). */
  #answeredAt = -1;

  constructor(text: string, names: SecretNames) {
    this.#text = text;
    this.#names = names;
  }

  /**
   * The secret value of the pair whose separator (`:`, `=`, or ` is ` when `spoken`) spans
   * `sep` to `after`; undefined when the pair hides nothing.
   */
  secretValue(sep: number, after: number, spoken: boolean): Span | undefined {
    const text = this.#text;
    const name = nameBefore(text, sep);
    if (name === undefined) return undefined;
    let start = skipBlanks(text, after);
    if (spoken) {
      if (text[start] === ':') start = skipBlanks(text, start + 1);
      if (isSpokenSecretName(name)) return spokenValue(text, start);
    } else {
      if (isLabelField(name)) this.#readLabel(sep, start);
      if (this.#names.has(name) || (isValueField(name) && this.#namedSecret(sep, after))) {
        return valueSpan(text, start);
      }
    }
    if (!MAY_NAME_A_CODE.test(name)) return undefined;
    const short = shortValue(text, start);
    return short !== undefined && isOneTimeCode(name, short.value) ? short : undefined;
  }

  #readLabel(sep: number, start: number): void {
    const short = shortValue(this.#text, start);
    this.#label = {
      end: short?.end ?? start,
      secret: short !== undefined && this.#names.has(short.value),
      answered: sep === this.#answeredAt,
    };
  }

  /** Whether the value field at `sep` belongs to a record whose name is a secret's. */
  #namedSecret(sep: number, after: number): boolean {
    const label = this.#label;
    if (
      label !== undefined &&
      !label.answered &&
      sep - label.end <= RECORD_REACH &&
      !/[{}]/.test(this.#text.slice(label.end, sep))
    ) {
      label.answered = true;
      return label.secret;
    }
    return this.#labelAhead(after);
  }

  /** The name after a value (`{"value": …, "name": "password"}`), up to the record's end. */
  #labelAhead(from: number): boolean {
    const text = this.#text;
    const limit = Math.min(text.length, from + RECORD_REACH);
    AHEAD.lastIndex = from;
    let pairs = 0;
    for (let m = AHEAD.exec(text); m !== null && m.index < limit; m = AHEAD.exec(text)) {
      if (m[0] === '{' || m[0] === '}' || ++pairs > PAIRS_AHEAD) return false;
      const name = nameBefore(text, m.index);
      if (name === undefined) continue;
      if (isValueField(name)) return false;
      if (!isLabelField(name)) continue;
      this.#answeredAt = m.index;
      const short = shortValue(text, skipBlanks(text, m.index + 1));
      return short !== undefined && this.#names.has(short.value);
    }
    return false;
  }
}

/** A short scalar at `start` (inside its quotes, if quoted), or nothing. */
function shortValue(text: string, start: number): (Span & { value: string }) | undefined {
  SHORT_VALUE.lastIndex = start;
  const m = SHORT_VALUE.exec(text);
  if (m === null) return undefined;
  const value = m[2] ?? m[3];
  const from = m[2] === undefined ? start : m.index + m[0].indexOf(value);
  return { start: from, end: from + value.length, value };
}

/** What a sentence says a password is, unless it only says something about it. */
function spokenValue(text: string, start: number): Span | undefined {
  const first = /^[A-Za-z]+/.exec(text.slice(start, start + 16))?.[0].toLowerCase();
  return first !== undefined && NOT_A_SECRET.has(first) ? undefined : valueSpan(text, start);
}

/**
 * The value after a secret's name, from `start`: a quoted string (also with JSON-escaped quotes),
 * or up to the end of the line or the structure. Nothing for an object or list (its own pairs
 * are scanned) and for `null`, `true`, `false` or an empty value.
 */
function valueSpan(text: string, start: number): Span | undefined {
  const first = text[start];
  if (first === undefined || first === '{' || first === '[') return undefined;
  const quote = first === '\\' && text[start + 1] === '"' ? '\\"' : first;
  if (quote === '"' || quote === "'" || quote === '\\"') {
    const from = start + quote.length;
    let end = text.indexOf(quote, from);
    // A backslash-escaped quote inside a plain quoted string does not close it.
    while (quote !== '\\"' && end > 0 && text[end - 1] === '\\') end = text.indexOf(quote, end + 1);
    if (end < 0) end = lineEnd(text, from);
    return end > from ? { start: from, end } : undefined;
  }
  VALUE_END.lastIndex = start;
  const stop = VALUE_END.exec(text)?.index ?? text.length;
  const value = text.slice(start, stop).trimEnd();
  if (value === '' || value === 'null' || value === 'true' || value === 'false') return undefined;
  return { start, end: start + value.length };
}

const NAME_LIMIT = 64;

/**
 * The name before a separator at `sep`, read backwards: letters, digits, `_`, `.`, `-`, maybe
 * inside quotes (also JSON-escaped ones, `\"name\"`), starting with a letter or `_`.
 */
function nameBefore(text: string, sep: number): string | undefined {
  let end = sep;
  while (end > 0 && (text[end - 1] === ' ' || text[end - 1] === '\t')) end--;
  if (text[end - 1] === '"' || text[end - 1] === "'") end -= text[end - 2] === '\\' ? 2 : 1;
  let start = end;
  while (start > 0 && end - start < NAME_LIMIT && isNameChar(text.charCodeAt(start - 1))) start--;
  // `--password` and `.api_key` are named by their letters.
  while (start < end && !isNameStart(text.charCodeAt(start))) start++;
  return start < end ? text.slice(start, end) : undefined;
}

function skipBlanks(text: string, from: number): number {
  let i = from;
  while (text[i] === ' ' || text[i] === '\t') i++;
  return i;
}

function isNameStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

function isNameChar(c: number): boolean {
  return isNameStart(c) || (c >= 48 && c <= 57) || c === 45 || c === 46;
}

function lineEnd(text: string, from: number): number {
  const newline = text.indexOf('\n', from);
  return newline < 0 ? text.length : newline;
}
