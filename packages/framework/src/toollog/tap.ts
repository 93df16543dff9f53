/**
 * `ToolCallTap`: a tool-call logger that writes nowhere and hands each call, redacted as the
 * file loggers redact it, to in-process subscribers — mcp-proxy's web console feeds its live
 * call list and its call-rate chart from one. It keeps the last calls (at most `keep` of them
 * and `maxBytes` in all), so a subscriber that arrives later sees recent history.
 *
 * What it keeps is a copy that shares no memory with the call: a string cut with `slice` is,
 * in V8, a view that keeps the whole original alive, so 200 kept calls of 4 MB arguments held
 * 800 MB although each showed 200 characters. Every entry is rebuilt from its JSON text.
 *
 * Redaction runs off the call's path (a macrotask later), as the file loggers do it while they
 * write, and only while someone listens or history is kept.
 *
 * @module
 */
import { type RedactionSettings, Redactor } from './redact.ts';
import type { CallDetails, CallOutcome, Clock, ToolLogger } from './types.ts';

/**
 * One call, as subscribers see it. `params` is redacted, strings in it cut short; when its JSON
 * is still longer than `maxParamChars`, it is that JSON text, cut, as a string.
 */
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
  /** The calls kept take at most this many bytes (UTF-8 of their JSON); default 1 MiB. */
  maxBytes?: number;
  /** Strings in params are cut to this many characters; default 200. */
  maxString?: number;
  /** A call's params, as JSON, are cut to this many characters; default 2000. */
  maxParamChars?: number;
  clock?: Clock;
}

export class ToolCallTap implements ToolLogger {
  readonly #redactor: Redactor;
  readonly #keep: number;
  readonly #maxBytes: number;
  readonly #maxString: number;
  readonly #maxParamChars: number;
  readonly #clock: Clock;
  /** The calls kept, oldest first, each with its size in bytes. */
  readonly #recent: Array<{ call: TappedCall; bytes: number }> = [];
  #bytes = 0;
  readonly #subscribers = new Set<(call: TappedCall) => void>();
  #seq = 0;
  #closed = false;

  constructor(options: ToolCallTapOptions = {}) {
    this.#redactor = Redactor.for(options.redaction);
    this.#keep = options.keep ?? 200;
    this.#maxBytes = options.maxBytes ?? 1024 * 1024;
    this.#maxString = options.maxString ?? 200;
    this.#maxParamChars = options.maxParamChars ?? 2000;
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
      const call: TappedCall = {
        seq: ++this.#seq,
        time,
        tool,
        plugin: details?.plugin,
        outcome: details?.outcome ?? (ok ? 'ok' : 'error'),
        durationMs: details?.durationMs,
        sessionId: details?.sessionId,
        principal: details?.principal,
        params: this.#params(tool, params),
      };
      // Rebuilt from its JSON text: none of its strings is then a slice of (and keeps alive)
      // a caller's argument. The same text measures it.
      let json: string;
      try {
        json = JSON.stringify(call);
      } catch {
        json = JSON.stringify({ ...call, params: '[unreadable arguments]' });
      }
      this.#publish(JSON.parse(json) as TappedCall, Buffer.byteLength(json));
    });
  }

  /** The calls kept, oldest first. */
  recent(): TappedCall[] {
    return this.#recent.map((kept) => kept.call);
  }

  /** How many bytes the calls kept take (UTF-8 of their JSON); at most `maxBytes`. */
  get bytes(): number {
    return this.#bytes;
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

  /** Redacted params, or their JSON cut to `maxParamChars` when longer. */
  #params(tool: string, params: unknown): unknown {
    try {
      const redacted = this.#redactor.params(tool, params ?? {}, this.#maxString);
      const json = JSON.stringify(redacted) ?? 'null';
      if (json.length <= this.#maxParamChars) return redacted;
      return `${json.slice(0, this.#maxParamChars)}… (+${json.length - this.#maxParamChars} chars)`;
    } catch {
      return '[unreadable arguments]';
    }
  }

  #publish(call: TappedCall, bytes: number): void {
    if (this.#keep > 0 && bytes <= this.#maxBytes) {
      this.#recent.push({ call, bytes });
      this.#bytes += bytes;
      while (this.#recent.length > this.#keep || this.#bytes > this.#maxBytes) {
        this.#bytes -= (this.#recent.shift() as { bytes: number }).bytes;
      }
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
