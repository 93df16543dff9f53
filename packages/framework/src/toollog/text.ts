/**
 * `TextToolLogger`: one line per call, `[YYYY-MM-DD HH:MM:SS] OK|FAIL tool {params}` (then
 * `session=…` / `principal=…` / `via=code` when known), in a file rotated by size to `.1` … `.N` like
 * logrotate.
 *
 * @module
 */
import { appendFile, mkdir, rename, stat, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { callerText, paramsText } from './format.ts';
import { localDate, localTime } from './time.ts';
import type { ToolLoggerBaseOptions } from './types.ts';
import { formatOrSkip, type QueuedCall, QueuedToolLogger } from './writeQueue.ts';

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

export class TextToolLogger extends QueuedToolLogger {
  readonly #file: string;
  readonly #maxBytes: number;
  readonly #backups: number;
  readonly #maxParamChars: number;
  #size: number | undefined;

  constructor(options: TextToolLoggerOptions) {
    super(`tool-call log ${options.file}`, options);
    this.#file = options.file;
    this.#maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
    this.#backups = options.backups ?? 3;
    this.#maxParamChars = options.maxParamChars ?? 100;
  }

  get path(): string {
    return this.#file;
  }

  #format({ ts, tool, params, ok, details }: QueuedCall): string {
    const status = details?.outcome === 'rejected' ? 'REJECTED' : ok ? 'OK' : 'FAIL';
    const args = paramsText(this.redactor, tool, params, this.#maxParamChars);
    return `[${localDate(ts)} ${localTime(ts)}] ${status} ${tool} ${args}${callerText(details)}\n`;
  }

  /** Appends a batch in as few writes as the rotations allow. */
  protected async writeBatch(calls: QueuedCall[]): Promise<void> {
    if (this.#size === undefined) {
      await mkdir(dirname(this.#file), { recursive: true, mode: 0o700 });
      this.#size = await stat(this.#file).then(
        (s) => s.size,
        () => 0,
      );
    }
    let chunk = '';
    for (const call of calls) {
      const line = formatOrSkip(() => this.#format(call));
      if (line === undefined) continue;
      const bytes = Buffer.byteLength(line);
      if (this.#size > 0 && this.#size + bytes > this.#maxBytes) {
        if (chunk !== '') await appendFile(this.#file, chunk, { mode: 0o600 });
        chunk = '';
        await this.#rotate();
        this.#size = 0;
      }
      chunk += line;
      this.#size += bytes;
    }
    if (chunk !== '') await appendFile(this.#file, chunk, { mode: 0o600 });
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
