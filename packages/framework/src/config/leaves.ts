/**
 * The leaves of the configuration schema (schema.ts): one zod schema per kind of value — text,
 * numbers and switches, lists, fixed words — each converting what was written (including the
 * string forms `${VAR}` interpolation and environment variables produce) or reporting
 * `expected …, got …` in words a user can act on. Apart from the sections so each reads alone.
 *
 * @module
 */
import { z } from 'zod';
import {
  LOG_FORMATS,
  LOG_LEVELS,
  type LogFormat,
  type LogLevel,
  type TransportKind,
} from './types.ts';

/** Short, quoted rendering of a wrong value for messages. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string')
    return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}…` : value);
  return String(value);
}

/**
 * A leaf that converts what was written into the wanted value, or reports `expected …`.
 * `parse` returns `undefined` for "not acceptable".
 */
export function leaf<T>(expected: string, parse: (value: unknown) => T | undefined) {
  return z.unknown().transform((value, ctx): T => {
    const parsed = parse(value);
    if (parsed === undefined) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        message: `expected ${expected}, got ${describeValue(value)}`,
      });
      return z.NEVER;
    }
    return parsed;
  });
}

const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off']);

function parseBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const word = value.trim().toLowerCase();
    if (TRUE.has(word)) return true;
    if (FALSE.has(word)) return false;
  }
  return undefined;
}

export function parseInteger(value: unknown, min: number, max: number): number | undefined {
  const number =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\s*\d+\s*$/.test(value)
        ? Number(value)
        : Number.NaN;
  return Number.isInteger(number) && number >= min && number <= max ? number : undefined;
}

export function oneOf<T extends string>(words: readonly T[], aliases: Record<string, T> = {}) {
  return (value: unknown): T | undefined => {
    if (typeof value !== 'string') return undefined;
    const word = value.trim().toLowerCase();
    return (words as readonly string[]).includes(word) ? (word as T) : aliases[word];
  };
}

/** Plain text: any string, a non-empty one, an optional one, an http(s) URL, a version. */
function textLeaves() {
  const str = leaf('a string', (v) => (typeof v === 'string' ? v : undefined));
  const nonEmpty = leaf('a non-empty string', (v) =>
    typeof v === 'string' && v.trim() !== '' ? v : undefined,
  );
  /** Empty means "not set", so `${TOKEN:-}` can leave an optional value out on purpose. */
  const optionalString = leaf('a string', (v) => (typeof v === 'string' ? v : undefined)).transform(
    (v) => (v === '' ? undefined : v),
  );
  const optionalUrl = leaf('an http(s) URL', (v) => {
    if (typeof v !== 'string') return undefined;
    if (v === '') return '';
    return URL.canParse(v) && /^https?:$/.test(new URL(v).protocol) ? v : undefined;
  }).transform((v) => (v === '' ? undefined : v));
  const version = leaf('a version string', (v) =>
    typeof v === 'string' || typeof v === 'number' ? String(v) : undefined,
  );
  return { str, nonEmpty, optionalString, optionalUrl, version };
}

/** Switches and numbers: booleans, ports, counts, seconds. */
function numberLeaves() {
  const bool = leaf('true or false', parseBoolean);
  /** Empty means "not set", so `${VAR:-}` leaves the decision to the default. */
  const optionalBool = leaf<boolean | ''>('true or false', (v) =>
    v === '' ? '' : parseBoolean(v),
  ).transform((v) => (v === '' ? undefined : v));
  const port = leaf('a port number (0-65535)', (v) => parseInteger(v, 0, 65535));
  const count = leaf('a whole number (0 or more)', (v) =>
    parseInteger(v, 0, Number.MAX_SAFE_INTEGER),
  );
  const seconds = leaf('a whole number of seconds (0 or more)', (v) =>
    parseInteger(v, 0, Number.MAX_SAFE_INTEGER),
  );
  return { bool, optionalBool, port, count, seconds };
}

/** A JavaScript regular expression that compiles and cannot match the empty string. */
function regexPattern() {
  return z.unknown().transform((value, ctx): string => {
    let problem: string | undefined;
    if (typeof value !== 'string' || value === '') problem = 'a non-empty string';
    else {
      try {
        if (new RegExp(value).test('')) problem = 'one that cannot match the empty string';
      } catch (error) {
        problem = `a valid one (${(error as Error).message})`;
      }
    }
    if (problem === undefined) return value as string;
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      message: `expected a regular expression, ${problem}; got ${describeValue(value)}`,
    });
    return z.NEVER;
  });
}

/** Lists and mappings: of strings (`str` is the text leaf), of regular expressions. */
function collectionLeaves(str: ReturnType<typeof textLeaves>['str']) {
  const isMapping = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  const stringList = leaf('a list of strings', (v) => (Array.isArray(v) ? v : undefined)).pipe(
    z.array(str),
  );
  const stringMap = leaf('a mapping of strings', (v) => (isMapping(v) ? v : undefined)).pipe(
    z.record(z.string(), str),
  );
  const patternList = leaf('a list of regular expressions', (v) =>
    Array.isArray(v) ? v : undefined,
  ).pipe(z.array(regexPattern()));
  return { stringList, stringMap, patternList };
}

/** One word of a fixed set: log level, log format, transport (with their aliases). */
function choiceLeaves() {
  const logLevel = leaf<LogLevel>(
    `one of ${LOG_LEVELS.join(', ')}`,
    oneOf(LOG_LEVELS, { warn: 'warning' }),
  );
  const logFormat = leaf<LogFormat>(`one of ${LOG_FORMATS.join(', ')}`, oneOf(LOG_FORMATS));
  const transport = leaf<TransportKind>(
    'one of stdio, http (or streamable-http), sse',
    oneOf(['stdio', 'http', 'sse'] as const, {
      'streamable-http': 'http',
      streamable_http: 'http',
      streamablehttp: 'http',
    }),
  );
  return { logLevel, logFormat, transport };
}

/** Every leaf the sections below are made of. */
export function buildLeaves() {
  const text = textLeaves();
  return { ...text, ...numberLeaves(), ...collectionLeaves(text.str), ...choiceLeaves() };
}

export type Leaves = ReturnType<typeof buildLeaves>;
