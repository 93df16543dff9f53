/**
 * `ToolCallTap`: a tool-call logger that writes nowhere and hands each call, redacted as the
 * file loggers redact it, to in-process subscribers — mcp-proxy's web console feeds its live
 * call list and its call-rate chart from one. It keeps the last `keep` calls, so a subscriber
 * that arrives later sees recent history.
 *
 * Redaction runs off the call's path (a macrotask later), as the file loggers do it while they
 * write, and only while someone listens or history is kept.
 *
 * @module
 */
import { type RedactionSettings, Redactor } from './redact.ts';
import type { CallDetails, CallOutcome, Clock, ToolLogger } from './types.ts';

/** One call, as subscribers see it. `params` is redacted; strings in it are cut short. */
export interface TappedCall {
  /** Increasing per tap, so a reconnecting subscriber can skip what it has. */
  seq: number;
  /** Milliseconds since the epoch, when the call ended. */
  time: number;
  tool: string;
  plugin?: string;
  outcome: CallOutcome;
  durationMs?: number;
  sessionId?: string;
  principal?: string;
  params: unknown;
}

export interface ToolCallTapOptions {
  /** Extra redaction rules (pass the `Config`); built-in rules apply either way. */
  redaction?: RedactionSettings;
  /** Calls kept for late subscribers; default 200. */
  keep?: number;
  /** Strings in params are cut to this many characters; default 200. */
  maxString?: number;
  clock?: Clock;
}

export class ToolCallTap implements ToolLogger {
  readonly #redactor: Redactor;
  readonly #keep: number;
  readonly #maxString: number;
  readonly #clock: Clock;
  readonly #recent: TappedCall[] = [];
  readonly #subscribers = new Set<(call: TappedCall) => void>();
  #seq = 0;
  #closed = false;

  constructor(options: ToolCallTapOptions = {}) {
    this.#redactor = Redactor.for(options.redaction);
    this.#keep = options.keep ?? 200;
    this.#maxString = options.maxString ?? 200;
    this.#clock = options.clock ?? Date.now;
  }

  logCall(
    tool: string,
    params: unknown,
    _result: unknown,
    ok: boolean,
    details?: CallDetails,
  ): void {
    if (this.#closed || (this.#keep === 0 && this.#subscribers.size === 0)) return;
    const time = this.#clock();
    setImmediate(() => {
      let redacted: unknown;
      try {
        redacted = this.#redactor.params(tool, params ?? {}, this.#maxString);
      } catch {
        redacted = '[unreadable arguments]';
      }
      this.#publish({
        seq: ++this.#seq,
        time,
        tool,
        plugin: details?.plugin,
        outcome: details?.outcome ?? (ok ? 'ok' : 'error'),
        durationMs: details?.durationMs,
        sessionId: details?.sessionId,
        principal: details?.principal,
        params: redacted,
      });
    });
  }

  /** The calls kept, oldest first. */
  recent(): TappedCall[] {
    return [...this.#recent];
  }

  /** Hears every call from now on. Returns a remover. */
  subscribe(listener: (call: TappedCall) => void): () => void {
    this.#subscribers.add(listener);
    return () => this.#subscribers.delete(listener);
  }

  async flush(): Promise<void> {
    // Calls logged so far are published one macrotask later.
    await new Promise((resolve) => setImmediate(resolve));
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#subscribers.clear();
  }

  #publish(call: TappedCall): void {
    if (this.#keep > 0) {
      this.#recent.push(call);
      if (this.#recent.length > this.#keep) this.#recent.shift();
    }
    for (const subscriber of this.#subscribers) {
      try {
        subscriber(call);
      } catch {
        // A broken subscriber must not stop the others.
      }
    }
  }
}
