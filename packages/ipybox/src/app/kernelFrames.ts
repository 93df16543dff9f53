/**
 * Talks to `frames.py` in a kernel: installs it (once per kernel process) and asks it for one
 * page of a kept DataFrame.
 *
 * Both go through the session's `runCell`, so they wait their turn behind a running cell like any
 * other and start the kernel if needed. They are cells of their own: they add to the kernel's
 * input history (`In`) but bind no user variable and leave `_` alone (their value is None).
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { CodeExecutionError } from '../kernel/errors.ts';
import type { KernelSession } from '../kernels/kernelSession.ts';

const MODULE = '_ipybox_viewer';
/** Read once: the installing cell carries the source as a string literal. */
const SOURCE = readFileSync(new URL('./frames.py', import.meta.url), 'utf8');
const INSTALL_CELL =
  `(lambda s, m: None if m in s.modules else (s.modules.__setitem__(m, __import__('types').ModuleType(m)), exec(${JSON.stringify(SOURCE)}, s.modules[m].__dict__)))(__import__('sys'), ${JSON.stringify(MODULE)})\n` +
  `__import__(${JSON.stringify(MODULE)}).install(get_ipython())`;

/** Generous: a kernel starting on a loaded machine, or a sort of a large frame. */
const CELL_TIMEOUT_MS = 120_000;

/** The kernel processes the module was installed in, by session. */
const installedIn = new WeakMap<KernelSession, number>();

/** Makes the session's kernel describe and keep the DataFrames it displays (idempotent). */
export async function installFrameCapture(session: KernelSession): Promise<void> {
  const pid = session.kernelPid;
  if (pid !== undefined && installedIn.get(session) === pid) return;
  await session.runCell(INSTALL_CELL, { timeoutMs: CELL_TIMEOUT_MS });
  const started = session.kernelPid;
  if (started !== undefined) installedIn.set(session, started);
}

export interface PageRequest {
  offset: number;
  limit: number;
  /** Position of the column to sort by; none keeps the frame's order. */
  sortColumn?: number;
  descending?: boolean;
}

export interface FramePage {
  rows: number;
  offset: number;
  columns: string[];
  index: unknown[];
  data: unknown[][];
}

/** Why a page could not be read, for the caller. */
export class FramePageError extends Error {
  override name = 'FramePageError';
}

const GONE =
  'the kernel no longer holds this DataFrame (the kernel was reset or restarted, or many newer frames were shown since): run the cell again';

/** One page of the frame kept under `key` (a checked `f<n>`) in the session's kernel. */
export async function readFramePage(
  session: KernelSession,
  key: string,
  request: PageRequest,
): Promise<FramePage> {
  const args = [
    JSON.stringify(key),
    request.offset,
    request.limit,
    request.sortColumn ?? 'None',
    request.descending ? 'True' : 'False',
  ].join(', ');
  let text: string;
  try {
    const result = await session.runCell(`__import__(${JSON.stringify(MODULE)}).page(${args})`, {
      timeoutMs: CELL_TIMEOUT_MS,
    });
    text = result.stdout;
  } catch (error) {
    // No module: the kernel restarted since the cell ran (a fresh one has no frames).
    if (error instanceof CodeExecutionError && error.ename === 'ModuleNotFoundError') {
      throw new FramePageError(GONE);
    }
    throw error;
  }
  const answer = parseAnswer(text);
  if (answer.error === 'gone') throw new FramePageError(GONE);
  if (answer.error === 'column') {
    throw new FramePageError(
      `sort_column ${request.sortColumn} is out of range: the frame has ${answer.columns} columns (0 to ${Number(answer.columns) - 1})`,
    );
  }
  if (typeof answer.rows !== 'number' || !Array.isArray(answer.data)) {
    throw new FramePageError(`the kernel's answer is not a page: ${text.slice(0, 200)}`);
  }
  return answer as unknown as FramePage;
}

/** The page's JSON line: the last one printed (user code may have redirected stdout). */
function parseAnswer(text: string): Record<string, unknown> {
  const line = text.trim().split('\n').at(-1) ?? '';
  try {
    const parsed: unknown = JSON.parse(line);
    if (parsed && typeof parsed === 'object') return parsed as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new FramePageError(
    `the kernel's answer could not be read (its stdout may be redirected): ${JSON.stringify(text.slice(0, 200))}`,
  );
}
