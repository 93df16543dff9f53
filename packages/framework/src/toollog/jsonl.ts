/**
 * `JsonlToolLogger`: one JSON object per call in `<dir>/tool_calls.jsonl`. On the first write of a
 * new day the previous day's file is gzipped to `<dir>/YYYY-MM-DD.jsonl.gz` (appending a gzip
 * member if that archive exists, which gunzip reads as one stream), and archives older than the
 * retention are deleted.
 *
 * @module
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { appendFile, mkdir, readdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { boundedParams, loggedSessionId, resultText } from './format.ts';
import { localDate, localIso } from './time.ts';
import type { ToolLoggerBaseOptions } from './types.ts';
import { formatOrSkip, type QueuedCall, QueuedToolLogger } from './writeQueue.ts';

export interface JsonlToolLoggerOptions extends ToolLoggerBaseOptions {
  /** Directory of the live file and the archives; created when missing. */
  dir: string;
  /** Archives older than this many days are deleted. Default 90. */
  retentionDays?: number;
  /** Each string in the params is cut to this many characters. Default 500. */
  maxParamChars?: number;
  /** The result text is cut to this many characters. Default 2000. */
  maxResultChars?: number;
}

const LIVE_FILE = 'tool_calls.jsonl';
const ARCHIVE = /^(\d{4}-\d{2}-\d{2})\.jsonl\.gz$/;
const DAY_MS = 86_400_000;

export class JsonlToolLogger extends QueuedToolLogger {
  readonly #dir: string;
  readonly #file: string;
  readonly #retentionDays: number;
  readonly #maxParamChars: number;
  readonly #maxResultChars: number;
  /** The local day the live file's entries belong to; unknown until the first write. */
  #fileDay: string | undefined;

  constructor(options: JsonlToolLoggerOptions) {
    super(`tool-call log ${join(options.dir, LIVE_FILE)}`, options);
    this.#dir = options.dir;
    this.#file = join(options.dir, LIVE_FILE);
    this.#retentionDays = options.retentionDays ?? 90;
    this.#maxParamChars = options.maxParamChars ?? 500;
    this.#maxResultChars = options.maxResultChars ?? 2000;
  }

  /** Path of the file written today. */
  get path(): string {
    return this.#file;
  }

  #format({ ts, tool, params, result, ok, details }: QueuedCall): string {
    const entry = {
      ts: localIso(ts),
      tool,
      ...(details?.plugin === undefined ? {} : { plugin: details.plugin }),
      // Who called: metadata from the transport and OAuth, not arguments, so not redacted (the
      // session id only shortened: see loggedSessionId).
      ...(details?.sessionId === undefined ? {} : { session: loggedSessionId(details.sessionId) }),
      ...(details?.principal === undefined ? {} : { principal: details.principal }),
      ...(details?.via === undefined ? {} : { via: details.via }),
      params: boundedParams(this.redactor, tool, params, this.#maxParamChars),
      result: resultText(this.redactor, result, this.#maxResultChars),
      ok,
      ...(details?.outcome === undefined ? {} : { outcome: details.outcome }),
      ...(details?.durationMs === undefined
        ? {}
        : { ms: Math.round(details.durationMs * 10) / 10 }),
    };
    return `${JSON.stringify(entry)}\n`;
  }

  /** Appends a batch, one `appendFile` per day it spans. */
  protected async writeBatch(calls: QueuedCall[]): Promise<void> {
    let chunk = '';
    for (const call of calls) {
      const line = formatOrSkip(() => this.#format(call));
      if (line === undefined) continue;
      const day = localDate(call.ts);
      if (day !== this.#fileDay) {
        if (chunk !== '') await appendFile(this.#file, chunk, { mode: 0o600 });
        chunk = '';
        await this.#startDay(day, call.ts);
      }
      chunk += line;
    }
    if (chunk !== '') await appendFile(this.#file, chunk, { mode: 0o600 });
  }

  /** Before the first entry of `day`: archive the live file if it holds another day, prune. */
  async #startDay(day: string, now: number): Promise<void> {
    if (this.#fileDay === undefined) {
      await mkdir(this.#dir, { recursive: true, mode: 0o700 });
      // A file left by an earlier run belongs to the day it was last written.
      this.#fileDay = await stat(this.#file).then(
        (s) => localDate(s.mtimeMs),
        () => day,
      );
    }
    if (this.#fileDay !== day) await this.#archive(this.#fileDay);
    await this.#prune(now);
    this.#fileDay = day;
  }

  async #archive(day: string): Promise<void> {
    const exists = await stat(this.#file).then(
      () => true,
      () => false,
    );
    if (!exists) return;
    // zlib loads for the first archive of a run, not with every server (cold start).
    const [{ pipeline }, { createGzip }] = await Promise.all([
      import('node:stream/promises'),
      import('node:zlib'),
    ]);
    await pipeline(
      createReadStream(this.#file),
      createGzip(),
      createWriteStream(join(this.#dir, `${day}.jsonl.gz`), { flags: 'a', mode: 0o600 }),
    );
    await unlink(this.#file);
  }

  async #prune(now: number): Promise<void> {
    const oldestKept = localDate(now - this.#retentionDays * DAY_MS);
    for (const name of await readdir(this.#dir)) {
      const day = ARCHIVE.exec(name)?.[1];
      if (day !== undefined && day < oldestKept) await unlink(join(this.#dir, name));
    }
  }
}
