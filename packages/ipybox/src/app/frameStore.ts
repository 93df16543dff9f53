/**
 * The DataFrames a caller's cells displayed, under ids the viewer pages them by.
 *
 * The frame itself stays in the kernel (`frames.py` keeps it under a short key); this keeps, per
 * id, who may page it and where: the caller that ran the cell (the same caller key as the
 * `ipybox://` output resources: the OAuth principal, else the 2025 session, else the connection)
 * and its kernel session. Ids are 128 random bits; an id of another caller reads as unknown, so
 * nothing tells a caller that someone else's frame exists. Bounded: the oldest go first.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import type { PluginServer } from '@mcpbox/framework';
import type { KernelSession } from '../kernels/kernelSession.ts';

/** What the viewer is told of a frame (in the tool result's `_meta`). */
export interface FrameSummary {
  id: string;
  rows: number;
  columns: string[];
  dtypes: string[];
}

export interface StoredFrame extends FrameSummary {
  caller: string;
  session: KernelSession;
  /** The kernel-side key (`f<n>`), checked before it is ever put into code. */
  key: string;
}

const KEY = /^f[0-9]{1,12}$/;
/** Columns named to the viewer at most (a frame may have thousands); pages carry the rest. */
const MAX_COLUMNS = 200;
const MAX_NAME_CHARS = 200;

export class FrameStore {
  readonly #max: number;
  readonly #frames = new Map<string, StoredFrame>();

  constructor(maxFrames = 200) {
    this.#max = maxFrames;
  }

  get size(): number {
    return this.#frames.size;
  }

  /**
   * Keeps the frame a kernel described (`application/vnd.ipybox.frame+json`), or returns
   * undefined when the description is malformed: it is kernel output, which user code can forge.
   */
  add(caller: string, session: KernelSession, described: unknown): FrameSummary | undefined {
    const { key, rows, columns, dtypes } = (described ?? {}) as Record<string, unknown>;
    if (typeof key !== 'string' || !KEY.test(key)) return undefined;
    if (typeof rows !== 'number' || !Number.isSafeInteger(rows) || rows < 0) return undefined;
    const names = textList(columns);
    if (!names) return undefined;
    const id = randomBytes(16).toString('base64url');
    const summary = { id, rows, columns: names, dtypes: textList(dtypes) ?? [] };
    this.#frames.set(id, { ...summary, caller, session, key });
    for (const oldest of this.#frames.keys()) {
      if (this.#frames.size <= this.#max) break;
      this.#frames.delete(oldest);
    }
    return summary;
  }

  /** The frame `id` names for `caller`, or undefined (unknown, evicted, or someone else's). */
  get(id: string, caller: string): StoredFrame | undefined {
    const frame = this.#frames.get(id);
    return frame?.caller === caller ? frame : undefined;
  }

  dropCaller(caller: string): void {
    for (const [id, frame] of this.#frames) if (frame.caller === caller) this.#frames.delete(id);
  }

  /** Frees a session's frames when it ends (held weakly, as the output resources are). */
  followSessions(server: PluginServer): void {
    const weak = new WeakRef(this);
    const stop = server.onSessionClosed(({ sessionId, connectionId }) => {
      const alive = weak.deref();
      if (!alive) return stop();
      if (sessionId !== undefined) alive.dropCaller(`session:${sessionId}`);
      alive.dropCaller(`connection:${connectionId}`);
    });
  }
}

function textList(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.slice(0, MAX_COLUMNS).map((item) => String(item).slice(0, MAX_NAME_CHARS));
}
