/**
 * Newline-delimited JSON-RPC over a readable and a writable stream, for servers, that never goes
 * silent: the SDK's own stdio transport drops what it cannot parse (and v2 drops frames of the
 * wrong shape), so a client waits forever for an answer. Here
 *
 * - a line that is not JSON gets a `-32700` parse error;
 * - a message of the wrong shape (`null`, `42`, a batch — MCP has had none since 2025-06-18 —,
 *   an object without a method, result or error) gets a `-32600` for its id, or for id `null`
 *   when it has none that is valid (JSON-RPC 2.0 §5);
 * - so does a message nested too deep to handle (jsonDepth.ts), or one `screen` refuses;
 * - a message over `maxMessageBytes` is skipped, answered with a `-32600` for the `id` read
 *   from its first bytes (else `null`), and reading goes on with the next line;
 * - a UTF-8 byte order mark before a message is ignored;
 * - whenever the transport closes, `onclosed` hears why.
 *
 * @module
 */
import type { Readable, Writable } from 'node:stream';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { echoableId, nestsDeeperThan, TOO_DEEP } from './jsonDepth.ts';

/** Default largest message: 64 MiB (kernel outputs and file contents travel in messages). */
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

const NEWLINE = 0x0a;
const BOM = '\uFEFF';
/** How much of an oversized message is kept to find its `id`. */
const ID_PREFIX_BYTES = 4096;

export interface StdioTransportOptions {
  stdin: Readable;
  stdout: Writable;
  /** Largest accepted message in bytes. Default {@link DEFAULT_MAX_MESSAGE_BYTES}. */
  maxMessageBytes?: number;
  /** Told once why the transport closed (client gone, stdout broken, closed by the server). */
  onclosed?: (reason: string) => void;
  /** Told about a message that was refused (not JSON, wrong shape, too large). */
  onrejected?: (reason: string) => void;
  /**
   * Looks at each well-formed message before it is delivered; what it returns is sent back as
   * the error for the message's id, and the message is dropped.
   */
  screen?: (message: JSONRPCMessage) => { code: number; message: string } | undefined;
  /**
   * Offered each well-formed message that passed `screen`; returning true means it was answered
   * there (past the SDK's dispatch) and is not delivered.
   */
  direct?: (message: JSONRPCMessage) => boolean;
}

type Id = string | number;

function isId(value: unknown): value is Id {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/** Why a parsed value is not a JSON-RPC 2.0 message, or `undefined` when it is one. */
function shapeProblem(value: unknown): string | undefined {
  if (Array.isArray(value)) {
    return 'batches are not supported (MCP has none since 2025-06-18); send one message per line';
  }
  if (value === null || typeof value !== 'object')
    return 'a JSON-RPC message must be a JSON object';
  if (nestsDeeperThan(value)) return TOO_DEEP;
  const m = value as Record<string, unknown>;
  if (m.jsonrpc !== '2.0') return 'jsonrpc must be "2.0"';
  if ('method' in m) {
    if (typeof m.method !== 'string') return 'method must be a string';
    if ('params' in m && (m.params === null || typeof m.params !== 'object')) {
      return 'params must be an object or an array';
    }
    if ('id' in m && !isId(m.id)) return 'id must be a string or a number';
    return undefined;
  }
  if ('result' in m || 'error' in m) return isId(m.id) ? undefined : 'a response needs an id';
  return 'a JSON-RPC message needs a method, a result or an error';
}

/** The `id` of a message that is too large to parse, read from its first bytes. */
function idFromPrefix(prefix: string): Id | undefined {
  const match = /"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,20})/.exec(prefix);
  if (!match) return undefined;
  try {
    const id: unknown = JSON.parse(match[1]);
    return isId(id) ? id : undefined;
  } catch {
    return undefined;
  }
}

export class StdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #stdin: Readable;
  readonly #stdout: Writable;
  readonly #max: number;
  readonly #options: StdioTransportOptions;
  #chunks: Buffer[] = [];
  #buffered = 0;
  /** Set while skipping the rest of an oversized line: its first bytes, for the id. */
  #skipping: string | undefined;
  #closed = false;
  /** Whether writes are being gathered until the next tick. */
  #corked = false;

  constructor(options: StdioTransportOptions) {
    this.#options = options;
    this.#stdin = options.stdin;
    this.#stdout = options.stdout;
    this.#max = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  }

  async start(): Promise<void> {
    this.#stdin.on('data', this.#onData);
    this.#stdin.once('end', this.#onEnd);
    this.#stdin.once('close', this.#onEnd);
    this.#stdin.on('error', this.#onInputError);
    this.#stdout.on('error', this.#onOutputError);
  }

  readonly #onData = (chunk: Buffer): void => {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      if (newline === -1) {
        this.#take(chunk.subarray(start));
        return;
      }
      if (
        this.#chunks.length === 0 &&
        this.#skipping === undefined &&
        newline - start <= this.#max
      ) {
        // The usual case, a whole line in one chunk: decoded in place, not copied and joined.
        this.#handleLine(chunk.toString('utf8', start, newline));
      } else {
        this.#take(chunk.subarray(start, newline));
        this.#endOfLine();
      }
      start = newline + 1;
    }
  };

  /** Adds part of a line, switching to skip mode once the line is over the limit. */
  #take(part: Buffer): void {
    if (part.length === 0) return;
    if (this.#skipping !== undefined) return;
    if (this.#buffered + part.length > this.#max) {
      const prefix = Buffer.concat([...this.#chunks, part]).subarray(0, ID_PREFIX_BYTES);
      this.#skipping = prefix.toString('utf8');
      this.#chunks = [];
      this.#buffered = 0;
      return;
    }
    this.#chunks.push(Buffer.from(part));
    this.#buffered += part.length;
  }

  #endOfLine(): void {
    if (this.#skipping !== undefined) {
      const prefix = this.#skipping;
      this.#skipping = undefined;
      this.#reject(
        idFromPrefix(prefix) ?? null,
        -32600,
        `Message too large: over ${this.#max} bytes (the server's max message size); ` +
          'send smaller messages or raise the limit',
      );
      return;
    }
    const line = Buffer.concat(this.#chunks).toString('utf8');
    this.#chunks = [];
    this.#buffered = 0;
    this.#handleLine(line);
  }

  #handleLine(text: string): void {
    const line = text.startsWith(BOM) ? text.slice(1) : text;
    if (line.trim().length === 0) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      this.#reject(null, -32700, `Parse error: ${(error as Error).message}`);
      return;
    }
    const problem = shapeProblem(value);
    if (problem) {
      this.#reject(echoableId(value), -32600, `Invalid Request: ${problem}`);
      return;
    }
    const refused = this.#options.screen?.(value as JSONRPCMessage);
    if (refused) {
      this.#reject(echoableId(value), refused.code, refused.message);
      return;
    }
    if (this.#options.direct?.(value as JSONRPCMessage)) return;
    this.onmessage?.(value as JSONRPCMessage);
  }

  /**
   * Reports a refused message and answers it: for its own id, or `id: null` when none could be
   * read (JSON-RPC 2.0 §5: a parse error or an invalid request is answered even then).
   */
  #reject(id: Id | null, code: number, message: string): void {
    this.#options.onrejected?.(message);
    this.#write({ jsonrpc: '2.0', id, error: { code, message } });
  }

  readonly #onEnd = (): void => this.#finish('the client closed stdin');
  readonly #onInputError = (error: Error): void => {
    this.onerror?.(error);
    this.#finish(`stdin failed: ${error.message}`);
  };
  readonly #onOutputError = (error: Error): void => {
    this.onerror?.(error);
    this.#finish(`stdout failed: ${error.message}`);
  };

  #write(message: unknown): void {
    if (this.#closed) return;
    this.#stdout.write(`${JSON.stringify(message)}\n`);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.#closed) return resolve();
      const json = `${JSON.stringify(message)}\n`;
      this.#corkUntilNextTick();
      if (this.#stdout.write(json)) resolve();
      else this.#stdout.once('drain', resolve);
    });
  }

  /**
   * Messages sent in one run of the event loop's callbacks leave in one write: concurrent calls
   * often finish together (their requests arrived in one read), and a write to a pipe is a
   * system call of its own (a tenth of an echo call's CPU). The next tick comes before any I/O,
   * so no message waits for anything but the code already running.
   */
  #corkUntilNextTick(): void {
    if (this.#corked) return;
    this.#corked = true;
    this.#stdout.cork();
    process.nextTick(this.#uncork);
  }

  readonly #uncork = (): void => {
    this.#corked = false;
    this.#stdout.uncork();
  };

  #finish(reason: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#stdin.off('data', this.#onData);
    this.#stdin.off('end', this.#onEnd);
    this.#stdin.off('close', this.#onEnd);
    this.#stdin.off('error', this.#onInputError);
    this.#stdout.off('error', this.#onOutputError);
    this.#options.onclosed?.(reason);
    this.onclose?.();
  }

  async close(): Promise<void> {
    // Stop reading so the process can exit; stdin itself belongs to the process.
    this.#stdin.pause();
    this.#finish('the server closed the connection');
  }
}
