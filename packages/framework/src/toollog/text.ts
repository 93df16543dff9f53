/**
 * `TextToolLogger`: one line per call, `[YYYY-MM-DD HH:MM:SS] OK|FAIL tool {params}`, in a file
 * rotated by size to `.1` … `.N` like logrotate.
 *
 * @module
 */
import { appendFile, mkdir, rename, stat, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { paramsText, truncate } from './format.ts';
import { localDate, localTime } from './time.ts';
import {
  type CallDetails,
  type Clock,
  stderrSink,
  type ToolLogger,
  type ToolLoggerBaseOptions,
} from './types.ts';
import { WriteQueue } from './writeQueue.ts';

export interface TextToolLoggerOptions extends ToolLoggerBaseOptions {
  /** The log file; its directory is created when missing. */
  file: string;
  /** Rotate before a line would take the file past this size. Default 5 MiB. */
  maxBytes?: number;
  /** How many rotated files (`.1` newest … `.N` oldest) to keep. Default 3. */
  backups?: number;
  /** The params JSON is cut to this many characters. Default 100. */
  maxParamChars?: number;
}

export class TextToolLogger implements ToolLogger {
  readonly #file: string;
  readonly #maxBytes: number;
  readonly #backups: number;
  readonly #maxParamChars: number;
  readonly #clock: Clock;
  readonly #queue: WriteQueue;
  #size: number | undefined;
  #closed = false;

  constructor(options: TextToolLoggerOptions) {
    this.#file = options.file;
    this.#maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
    this.#backups = options.backups ?? 3;
    this.#maxParamChars = options.maxParamChars ?? 100;
    this.#clock = options.clock ?? Date.now;
    this.#queue = new WriteQueue(`tool-call log ${this.#file}`, options.logger ?? stderrSink);
  }

  get path(): string {
    return this.#file;
  }

  logCall(
    tool: string,
    params: unknown,
    _result: unknown,
    ok: boolean,
    details?: CallDetails,
  ): void {
    if (this.#closed) return;
    try {
      const ts = this.#clock();
      const status = details?.outcome === 'rejected' ? 'REJECTED' : ok ? 'OK' : 'FAIL';
      const line = `[${localDate(ts)} ${localTime(ts)}] ${status} ${tool} ${truncate(paramsText(tool, params), this.#maxParamChars)}\n`;
      this.#queue.push(() => this.#write(line));
    } catch {
      // The contract is no throw.
    }
  }

  flush(): Promise<void> {
    return this.#queue.flush();
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#queue.flush();
  }

  async #write(line: string): Promise<void> {
    const bytes = Buffer.byteLength(line);
    if (this.#size === undefined) {
      await mkdir(dirname(this.#file), { recursive: true });
      this.#size = await stat(this.#file).then(
        (s) => s.size,
        () => 0,
      );
    }
    if (this.#size > 0 && this.#size + bytes > this.#maxBytes) {
      await this.#rotate();
      this.#size = 0;
    }
    await appendFile(this.#file, line, { mode: 0o600 });
    this.#size += bytes;
  }

  async #rotate(): Promise<void> {
    const ignoreMissing = (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    };
    if (this.#backups === 0) {
      await unlink(this.#file).catch(ignoreMissing);
      return;
    }
    await unlink(`${this.#file}.${this.#backups}`).catch(ignoreMissing);
    for (let i = this.#backups - 1; i >= 1; i--) {
      await rename(`${this.#file}.${i}`, `${this.#file}.${i + 1}`).catch(ignoreMissing);
    }
    await rename(this.#file, `${this.#file}.1`);
  }
}
