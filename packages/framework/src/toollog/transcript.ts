/**
 * `TranscriptLogger`: a Markdown transcript of a session's tool calls, one file per run named
 * `YYYY-MM-DD-HH-MM-SS.md`, continued in a new file once it passes `maxBytes`.
 *
 * @module
 */
import { appendFile, mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import { callerText, resultText } from './format.ts';
import { localDate, localTime } from './time.ts';
import type { ToolLoggerBaseOptions } from './types.ts';
import { formatOrSkip, type QueuedCall, QueuedToolLogger } from './writeQueue.ts';

/** Queued by `close()`: the time for the `**Ended:**` line. */
type TranscriptEnd = { end: number };

export interface TranscriptLoggerOptions extends ToolLoggerBaseOptions {
  /** Directory of the transcripts; created when missing. */
  dir: string;
  /** Start a new file once the current one passes this size. Default 10 MiB. */
  maxBytes?: number;
  /** A result is cut to this many characters. Default 50 000. */
  maxResultChars?: number;
}

export class TranscriptLogger extends QueuedToolLogger<TranscriptEnd> {
  readonly #dir: string;
  readonly #maxBytes: number;
  readonly #maxResultChars: number;
  #file: string | undefined;
  #size = 0;

  constructor(options: TranscriptLoggerOptions) {
    super(`transcript in ${options.dir}`, options);
    this.#dir = options.dir;
    this.#maxBytes = options.maxBytes ?? 10 * 1024 * 1024;
    this.#maxResultChars = options.maxResultChars ?? 50_000;
  }

  /** The file being written, once the first call has been logged. */
  get path(): string | undefined {
    return this.#file;
  }

  /** Adds the `**Ended:**` line to the current transcript. */
  override close(): Promise<void> {
    return super.close({ end: this.clock() });
  }

  #format({ ts, tool, params, result, ok, details }: QueuedCall): string {
    const mark = details?.outcome === 'rejected' ? '⊘' : ok ? '✓' : '✗';
    const redacted = this.redactor.params(tool, params ?? {}, this.#maxResultChars);
    const paramLines = Object.entries(asRecord(redacted))
      .map(([k, v]) => `  ${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
      .join('\n');
    const body = resultText(this.redactor, result, this.#maxResultChars);
    const fence = fenceFor(body);
    const caller = callerText(details).trim();
    return (
      `## [${localTime(ts)}] ${mark} \`${tool}\`\n\n` +
      (caller === '' ? '' : `**Caller:** ${caller}\n\n`) +
      `**Parameters:**\n${paramLines || '  (none)'}\n\n` +
      `**Result:**\n${fence}\n${body}\n${fence}\n\n---\n\n`
    );
  }

  protected async writeBatch(items: (QueuedCall | TranscriptEnd)[]): Promise<void> {
    let chunk = '';
    const flushChunk = async () => {
      if (chunk !== '' && this.#file !== undefined) await appendFile(this.#file, chunk);
      chunk = '';
    };
    for (const item of items) {
      if ('end' in item) {
        chunk += `**Ended:** ${localDate(item.end)} ${localTime(item.end)}\n`;
        continue;
      }
      const entry = formatOrSkip(() => this.#format(item));
      if (entry === undefined) continue;
      if (this.#file === undefined || this.#size >= this.#maxBytes) {
        await flushChunk();
        await this.#start(item.ts);
      }
      chunk += entry;
      this.#size += Buffer.byteLength(entry);
    }
    await flushChunk();
  }

  async #start(ts: number): Promise<void> {
    await mkdir(this.#dir, { recursive: true, mode: 0o700 });
    const stamp = `${localDate(ts)}-${localTime(ts).replaceAll(':', '-')}`;
    const header = `# MCP Transcript\n\n**Started:** ${localDate(ts)} ${localTime(ts)}\n\n`;
    // Two files started within one second get -1, -2…: never append to another run's transcript.
    for (let n = 0; ; n++) {
      const file = join(this.#dir, n === 0 ? `${stamp}.md` : `${stamp}-${n}.md`);
      try {
        const handle = await open(file, 'wx', 0o600);
        await handle.writeFile(header);
        await handle.close();
        this.#file = file;
        this.#size = Buffer.byteLength(header);
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
  }
}

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : { value };
}

/** A code fence longer than any backtick run inside `body`, so a result cannot close it early. */
function fenceFor(body: string): string {
  const longest = Math.max(2, ...Array.from(body.matchAll(/`+/g), (m) => m[0].length));
  return '`'.repeat(longest + 1);
}
