/**
 * Loggers that write one line per record to stderr — never stdout, which under stdio belongs to
 * the MCP protocol. Two formats:
 *
 * - `text` (default, for people): `2026-12-02 13:00:00 INFO  factory: serving 3 plugins plugin=echo`
 * - `json` (for collectors): `{"ts":"2026-12-02T13:00:00.000Z","level":"INFO","logger":"factory","msg":"…"}`
 *   plus the record's extra fields, and `error` (the message, never the stack) when one was given.
 *
 * Level and format are process-wide (set once by {@link configureLogging}); loggers created
 * earlier follow later changes, so modules can create theirs at import time.
 *
 * @module
 */
import type { LogExtra, Logger } from '../contract/logger.ts';

export type { LogExtra, Logger };

export const LOG_LEVELS = ['debug', 'info', 'warning', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const LOG_FORMATS = ['text', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface LoggingOptions {
  /** Least severe level written. Default `info`. */
  level?: LogLevel;
  /** Default `text`. */
  format?: LogFormat;
  /** Where lines go; default `process.stderr`. For embedding, not for stdout. */
  write?: (line: string) => void;
}

const SEVERITY: Record<LogLevel, number> = { debug: 10, info: 20, warning: 30, error: 40 };
const LABEL: Record<LogLevel, string> = {
  debug: 'DEBUG',
  info: 'INFO',
  warning: 'WARN',
  error: 'ERROR',
};

const settings: Required<LoggingOptions> = {
  level: 'info',
  format: 'text',
  write: (line) => process.stderr.write(line),
};

/** Sets level and format for every logger, including those already created. */
export function configureLogging(options: LoggingOptions): void {
  if (options.level) settings.level = options.level;
  if (options.format) settings.format = options.format;
  if (options.write) settings.write = options.write;
}

const pad = (n: number) => String(n).padStart(2, '0');

function localTimestamp(date: Date): string {
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
  );
}

/** Extra fields as plain data: an `Error` (alone or under any key) becomes its message. */
function normalizeExtra(extra: LogExtra | undefined): Record<string, unknown> {
  if (extra === undefined) return {};
  if (extra instanceof Error) return { error: extra.message };
  return Object.fromEntries(
    Object.entries(extra).map(([key, value]) => [
      key,
      value instanceof Error ? value.message : value,
    ]),
  );
}

/** `key=value` pairs: simple words bare, anything else JSON-quoted so the line stays parseable. */
function textValue(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}

/** One line, whatever the message contains: newlines are escaped so each record stays one line. */
function formatRecord(
  level: LogLevel,
  logger: string,
  msg: string,
  extra: LogExtra | undefined,
): string {
  const now = new Date();
  const fields = normalizeExtra(extra);
  if (settings.format === 'json') {
    return `${JSON.stringify({ ts: now.toISOString(), level: LABEL[level], logger, msg, ...fields })}\n`;
  }
  const pairs = Object.entries(fields)
    .map(([key, value]) => ` ${key}=${textValue(value)}`)
    .join('');
  const line = `${localTimestamp(now)} ${LABEL[level].padEnd(5)} ${logger}: ${msg}${pairs}`;
  return `${line.replace(/\r?\n/g, '\\n')}\n`;
}

/** A named logger; `name` shows which part of the program wrote the line. */
export function createLogger(name: string): Logger {
  const emit = (level: LogLevel) => (msg: string, extra?: LogExtra) => {
    if (SEVERITY[level] < SEVERITY[settings.level]) return;
    try {
      settings.write(formatRecord(level, name, msg, extra));
    } catch {
      // Logging must never take the program down (e.g. stderr closed by the parent).
    }
  };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warning'), error: emit('error') };
}
