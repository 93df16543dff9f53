/**
 * The contract every tool-call logger satisfies, and the small things they share.
 *
 * @module
 */
import type { RedactionSettings } from './redact.ts';

/** Milliseconds since the epoch; injected so tests can move time (rotation, retention). */
export type Clock = () => number;

/** Where a logger reports its own trouble (one warning, never an exception). */
export interface WarningSink {
  warn(message: string): void;
}

/** What happened to a call, beyond ok / not ok. */
export type CallOutcome = 'ok' | 'error' | 'rejected';

/** Optional facts about a call that some loggers record. */
export interface CallDetails {
  outcome?: CallOutcome;
  plugin?: string;
  /**
   * The MCP session the call came in on (Streamable HTTP), when there is one. The file loggers
   * keep its first 8 characters (`loggedSessionId`).
   */
  sessionId?: string;
  /** Who made the call: the OAuth subject, else the OAuth client id, when authenticated. */
  principal?: string;
  durationMs?: number;
  /** `code` when the call came from code (code mode's kernels), absent for a direct call. */
  via?: 'code';
}

/**
 * A tool-call logger. `logCall` returns at once and never throws: the entry is queued and written
 * in the background, so a slow or broken disk never delays or fails a tool call.
 */
export interface ToolLogger {
  logCall(tool: string, params: unknown, result: unknown, ok: boolean, details?: CallDetails): void;
  /** Resolves when every entry queued so far has been written (or given up on). */
  flush(): Promise<void>;
  /** Writes anything pending and any closing lines; later calls are ignored. */
  close(): Promise<void>;
}

/** Options every file-backed logger accepts. */
export interface ToolLoggerBaseOptions {
  /** Time source, `Date.now` by default. */
  clock?: Clock;
  /** Receives the single warning when writing fails; stderr by default. */
  logger?: WarningSink;
  /**
   * Extra redaction rules (`redact_keys`, `redact_values`, `redact_heuristics`; pass the
   * `Config` as it is). Built-in rules apply either way.
   */
  redaction?: RedactionSettings;
}

/** The default sink: stderr, because under stdio stdout belongs to the protocol. */
export const stderrSink: WarningSink = {
  warn: (message) => process.stderr.write(`WARN ${message}\n`),
};
