/**
 * The reader of a stdio upstream's output, put in place of the SDK's `ReadBuffer` inside its
 * `StdioClientTransport`. Same framing — newline-delimited JSON, a trailing `\r` dropped, lines
 * that are not JSON skipped, the same size limit (exceeding it throws, and the transport reports
 * and closes) — but a message's JSON-RPC shape is checked by hand instead of through the SDK's
 * zod union, which cost ~30 µs a message: after the pipe writes, the largest cost of a mirrored
 * call in the proxy. Nothing gets further than before: the client's `Protocol` checks every
 * message against the same schemas again before dispatching it, and answers an envelope of the
 * wrong shape with `onerror`, as the transport did.
 *
 * @module
 */

import { isPlainObject } from '../protocol/plainObject.ts';

/** The part of the SDK's `ReadBuffer` its stdio transport uses. */
interface LineReader {
  append(chunk: Buffer): void;
  readMessage(): unknown;
  clear(): void;
}

/** The SDK's default largest buffered output (10 MiB), kept unless the transport set another. */
const DEFAULT_MAX_BUFFER_BYTES = 10 * 1024 * 1024;
const NEWLINE = 0x0a;
/** The SDK result `_meta` key whose invalid value its schema drops (`.catch(undefined)`). */
const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
const ENVELOPE_KEYS = {
  request: new Set(['jsonrpc', 'id', 'method', 'params']),
  notification: new Set(['jsonrpc', 'method', 'params']),
  result: new Set(['jsonrpc', 'id', 'result']),
  error: new Set(['jsonrpc', 'id', 'error']),
};

const isId = (value: unknown) =>
  typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));

function onlyKeys(message: Record<string, unknown>, allowed: Set<string>): boolean {
  for (const key in message) if (!allowed.has(key)) return false;
  return true;
}

/** A request's or notification's `params`: an object whose `_meta`, if any, is one too. */
function paramsProblem(params: unknown): string | undefined {
  if (params === undefined) return undefined;
  if (!isPlainObject(params)) return 'params must be an object';
  const meta = params._meta;
  if (meta === undefined) return undefined;
  if (!isPlainObject(meta)) return '_meta must be an object';
  if (meta.progressToken !== undefined && !isId(meta.progressToken)) {
    return 'progressToken must be a string or an integer';
  }
  return undefined;
}

/** Why `value` is not a JSON-RPC message the SDK's schema accepts, or undefined. */
export function messageProblem(value: unknown): string | undefined {
  if (!isPlainObject(value)) return 'a JSON-RPC message must be an object';
  if (value.jsonrpc !== '2.0') return 'jsonrpc must be "2.0"';
  if ('method' in value) {
    if (typeof value.method !== 'string') return 'method must be a string';
    const request = 'id' in value;
    if (request && !isId(value.id)) return 'id must be a string or an integer';
    if (!onlyKeys(value, request ? ENVELOPE_KEYS.request : ENVELOPE_KEYS.notification)) {
      return 'unexpected keys in a request or notification';
    }
    return paramsProblem(value.params);
  }
  if ('result' in value) {
    if (!isId(value.id)) return 'a response needs an id';
    if (!onlyKeys(value, ENVELOPE_KEYS.result)) return 'unexpected keys in a response';
    const result = value.result;
    if (!isPlainObject(result)) return 'result must be an object';
    if (result._meta === undefined) return undefined;
    if (!isPlainObject(result._meta)) return 'result _meta must be an object';
    dropInvalidServerInfo(result._meta);
    return undefined;
  }
  if ('error' in value) {
    if (value.id !== undefined && !isId(value.id)) return 'id must be a string or an integer';
    if (!onlyKeys(value, ENVELOPE_KEYS.error)) return 'unexpected keys in an error response';
    const error = value.error;
    if (
      !isPlainObject(error) ||
      !Number.isInteger(error.code) ||
      typeof error.message !== 'string'
    ) {
      return 'error must have an integer code and a string message';
    }
    return undefined;
  }
  return 'a JSON-RPC message needs a method, a result or an error';
}

/** As the SDK's schema does: a `serverInfo` that is not a name and version is dropped. */
function dropInvalidServerInfo(meta: Record<string, unknown>): void {
  const info = meta[SERVER_INFO];
  if (info === undefined) return;
  if (isPlainObject(info) && typeof info.name === 'string' && typeof info.version === 'string') {
    return;
  }
  meta[SERVER_INFO] = undefined;
}

export class StdioMessageReader implements LineReader {
  readonly #maxBytes: number;
  #buffer: Buffer | undefined;

  constructor(maxBytes = DEFAULT_MAX_BUFFER_BYTES) {
    this.#maxBytes = maxBytes;
  }

  append(chunk: Buffer): void {
    const buffered = this.#buffer?.length ?? 0;
    if (buffered + chunk.length > this.#maxBytes) {
      this.clear();
      throw new Error(`ReadBuffer exceeded maximum size of ${this.#maxBytes} bytes`);
    }
    this.#buffer = this.#buffer ? Buffer.concat([this.#buffer, chunk]) : chunk;
  }

  /** The next complete message, or null; throws for JSON of the wrong shape (that line is gone). */
  readMessage(): unknown {
    while (this.#buffer) {
      const end = this.#buffer.indexOf(NEWLINE);
      if (end === -1) return null;
      const cut = end > 0 && this.#buffer[end - 1] === 0x0d ? end - 1 : end;
      const line = this.#buffer.toString('utf8', 0, cut);
      this.#buffer = end + 1 < this.#buffer.length ? this.#buffer.subarray(end + 1) : undefined;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        continue; // a line that is not JSON (a stray print) is skipped, as the SDK does
      }
      const problem = messageProblem(value);
      if (problem) throw new Error(`invalid JSON-RPC message from the upstream: ${problem}`);
      return value;
    }
    return null;
  }

  clear(): void {
    this.#buffer = undefined;
  }
}

/**
 * Puts a {@link StdioMessageReader} into the SDK's stdio client transport (before `start()`),
 * keeping its size limit. A transport without the expected reader (another SDK version) keeps
 * its own: this is only faster, never needed.
 */
export function useStdioMessageReader(transport: object): void {
  const target = transport as { _readBuffer?: Partial<LineReader> & { _maxBufferSize?: unknown } };
  const current = target._readBuffer;
  if (typeof current?.readMessage !== 'function' || typeof current.append !== 'function') return;
  const max = typeof current._maxBufferSize === 'number' ? current._maxBufferSize : undefined;
  target._readBuffer = new StdioMessageReader(max);
}
