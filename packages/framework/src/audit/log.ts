/**
 * `AuditLog`: appends hash-chained records (`record.ts`) to one JSON-lines file. `record` seals
 * the record at once — its `seq` and `hash` are known to the caller, so a call's result can name
 * it — and queues the line; the tool-call logs' {@link WriteQueue} appends batches in the
 * background, so writing never delays a call. `close` writes everything queued.
 *
 * Resuming: at start the writer reads the file's tail (synchronously, once) and continues the
 * chain from the last record. A file whose last line is not a record — it ends mid-record after
 * a crash or a full disk, or was edited there — is not continued silently: the damaged line is
 * left as it is (it is evidence, and `verify` names it), the writer ends it with a newline and
 * its first record is a `break` record saying what it found, chained to the last intact record.
 * So the records after a break are still chained and checkable, and verify still fails at the
 * damaged line until the operator moves the file aside.
 *
 * A write that fails is tried again with the next batch (one warning, as for the tool-call logs);
 * a backlog past the queue's bound is dropped, which leaves a gap that verify reports.
 *
 * @module
 */
import { closeSync, fstatSync, mkdirSync, openSync, readSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type Clock, stderrSink, type WarningSink } from '../toollog/types.ts';
import { WriteQueue } from '../toollog/writeQueue.ts';
import { type AuditEntry, type AuditRecord, GENESIS, parseRecord, sealRecord } from './record.ts';

export interface AuditLogOptions {
  /** The log file; its folder is created when missing. */
  path: string;
  /** Time source, `Date.now` by default. */
  clock?: Clock;
  /** Receives the single warning when writing fails; stderr by default. */
  logger?: WarningSink;
}

/** Records are bounded (a few hundred bytes), so the last two lines fit in this much tail. */
const TAIL_BYTES = 64 * 1024;

/** Where the chain goes on, as the file's tail says. */
interface Resume {
  seq: number;
  prev: string;
  /** The file does not end with a newline: one goes first. */
  newline: boolean;
  /** The last line is not a record: a `break` record says so. */
  problem?: string;
}

export class AuditLog {
  readonly path: string;
  readonly #clock: Clock;
  readonly #queue: WriteQueue<string>;
  #seq: number;
  #prev: string;
  /** Text a failed append did not write: it goes first next time, so the chain has no gap. */
  #unwritten = '';
  #closed = false;
  /** Who sees each record as it is sealed (the OTLP export, `telemetry/auditLogs.ts`). */
  readonly #listeners = new Set<(record: AuditRecord, line: string) => void>();

  /** @throws when the file's folder cannot be created or the file cannot be read. */
  constructor(options: AuditLogOptions) {
    this.path = options.path;
    this.#clock = options.clock ?? Date.now;
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const resume = readResume(this.path);
    this.#seq = resume.seq;
    this.#prev = resume.prev;
    this.#queue = new WriteQueue(`audit log ${this.path}`, options.logger ?? stderrSink, (lines) =>
      this.#append(lines),
    );
    if (resume.newline) this.#queue.push('\n');
    if (resume.problem !== undefined) this.record({ kind: 'break', problem: resume.problem });
  }

  /** Seals `entry` as the next record and queues it; `undefined` once closed. Never throws. */
  record(entry: AuditEntry): AuditRecord | undefined {
    if (this.#closed) return undefined;
    const { record, line } = sealRecord(entry, this.#seq + 1, this.#prev, this.#clock());
    this.#seq = record.seq;
    this.#prev = record.hash;
    this.#queue.push(`${line}\n`);
    for (const listener of this.#listeners) listener(record, line);
    return record;
  }

  /**
   * Hands each later record and its line to `listener` (which must not throw) until the
   * remover is called.
   */
  onRecord(listener: (record: AuditRecord, line: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Resolves when everything recorded so far has been written (or given up on). */
  flush(): Promise<void> {
    return this.#queue.flush();
  }

  /** Stops taking records and writes those queued. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#queue.flush();
    // One more try for what a failed write left.
    if (this.#unwritten !== '') await this.#append([]).catch(() => undefined);
  }

  async #append(lines: string[]): Promise<void> {
    const text = this.#unwritten + lines.join('');
    this.#unwritten = text;
    await appendFile(this.path, text, { mode: 0o600 });
    this.#unwritten = '';
  }
}

/** Reads the end of `path` and decides where the chain goes on. */
function readResume(path: string): Resume {
  const tail = readTail(path);
  if (tail === undefined || tail.text === '') return { seq: 0, prev: GENESIS, newline: false };
  const unterminated = !tail.text.endsWith('\n');
  const lines = tail.text.split('\n');
  if (!unterminated) lines.pop();
  // A window that does not start the file may start inside a line.
  if (!tail.whole) lines.shift();
  const last = parseRecord(lines.at(-1) ?? '');
  // A whole record that only lacks its newline is intact: it gets one, and the chain goes on.
  if (last !== undefined) return { seq: last.seq, prev: last.hash, newline: unterminated };
  const before = lines.length >= 2 ? parseRecord(lines.at(-2) as string) : undefined;
  const where =
    before === undefined ? 'with no intact record before it' : `after the record seq ${before.seq}`;
  return {
    seq: before?.seq ?? 0,
    prev: before?.hash ?? GENESIS,
    newline: unterminated,
    problem: unterminated
      ? `the file ended mid-record ${where}; a new segment starts here`
      : `the last line was not an audit record ${where}; a new segment starts here`,
  };
}

/** The last {@link TAIL_BYTES} of `path`, or `undefined` when it does not exist. */
function readTail(path: string): { text: string; whole: boolean } | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    return { text: buffer.toString('utf8'), whole: length === size };
  } finally {
    closeSync(fd);
  }
}
