/**
 * Progress and timeouts for upstream requests, handled here rather than through the SDK's
 * `onprogress` option. Reason: SDK v1 dispatched notifications on a microtask but responses
 * synchronously, so when the last `notifications/progress` and the response arrived in one read
 * (common over stdio under load) the response removed the handler first and the final progress
 * was dropped ("unknown token"). A proxy must forward every step, so progress notifications are
 * routed synchronously, in wire order, straight from the transport, whatever the SDK's own
 * dispatch order (`upstream-burst.ts` is the regression fixture).
 *
 * @module
 */
import type { Progress, ProgressToken, Transport } from '@modelcontextprotocol/client';
import { type Due, deadlineClock } from './deadlineClock.ts';

type ProgressHandler = (progress: Progress) => void;

/** Routes `notifications/progress` for the tokens it handed out; everything else passes on. */
export class ProgressRouter {
  readonly #handlers = new Map<ProgressToken, ProgressHandler>();
  readonly #prefix: string;
  #next = 0;

  /** @param prefix makes tokens readable in upstream logs, e.g. the upstream's name. */
  constructor(prefix: string) {
    this.#prefix = prefix;
  }

  /** Call after `client.connect(transport)`, which installs the handler being wrapped. */
  attach(transport: Transport): void {
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if ('method' in message && message.method === 'notifications/progress') {
        const params = message.params as
          | (Progress & { progressToken?: ProgressToken; _meta?: unknown })
          | undefined;
        const handler =
          params?.progressToken !== undefined && this.#handlers.get(params.progressToken);
        if (handler) {
          const { progressToken: _token, _meta: _ignored, ...progress } = params;
          handler(progress);
          return;
        }
      }
      deliver?.(message, extra);
    };
  }

  /** A fresh token routed to `handler` until `release()`. */
  register(handler: ProgressHandler): { token: ProgressToken; release: () => void } {
    this.#next += 1;
    const token = `${this.#prefix}-${this.#next}`;
    this.#handlers.set(token, handler);
    return { token, release: () => this.#handlers.delete(token) };
  }
}

/** Longest delay setTimeout accepts; used to switch the SDK's own request timeout off. */
export const NO_SDK_TIMEOUT = 2_147_483_647;

/**
 * The end of one request: it comes when the caller aborts, when `timeoutMs` pass without
 * `touch()` (each progress notification touches it), or on `abort()`. Heard through `onAbort`
 * (one listener: the request being sent) or through `signal`, an `AbortSignal` made only when
 * first asked for — most requests end without anyone needing one (see `directRequests.ts`).
 * The clock is the process's one {@link deadlineClock}, not a timer per request.
 */
export class RequestDeadline {
  #controller: AbortController | undefined;
  readonly #timeoutMs: number;
  readonly #caller: AbortSignal | undefined;
  readonly #onCallerAbort = () => this.#end(this.#caller?.reason);
  #listener: ((reason: unknown) => void) | undefined;
  readonly #due: Due = {
    dueAt: 0,
    expire: () => {
      this.#timedOut = true;
      this.#end('timeout');
    },
  };
  #aborted = false;
  #reason: unknown;
  #timedOut = false;
  #holds = 0;

  constructor(timeoutMs: number, caller: AbortSignal | undefined) {
    this.#timeoutMs = timeoutMs;
    this.#caller = caller;
    if (caller?.aborted) this.#end(caller.reason);
    else caller?.addEventListener('abort', this.#onCallerAbort, { once: true });
    this.touch();
  }

  /** Aborted when the request ends early; made on first use. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  get aborted(): boolean {
    return this.#aborted;
  }

  /** Why the request ended early (as `signal.reason` would say). */
  get reason(): unknown {
    return this.#reason;
  }

  get timedOut(): boolean {
    return this.#timedOut;
  }

  /** Calls `listener` once, with the reason, when the request ends early (replaces an earlier one). */
  onAbort(listener: (reason: unknown) => void): void {
    this.#listener = listener;
  }

  touch(): void {
    if (this.#aborted || this.#holds > 0) return;
    this.#due.dueAt = performance.now() + this.#timeoutMs;
    deadlineClock.watch(this.#due);
  }

  /**
   * Stops the clock until the returned release is called (then it restarts in full): while the
   * upstream waits for our caller's answer to its question, the caller is the slow one, not it.
   */
  hold(): () => void {
    this.#holds += 1;
    deadlineClock.unwatch(this.#due);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#holds -= 1;
      this.touch();
    };
  }

  /** Ends the request now, with `reason` as the signal's reason (a deliberate stop, not a timeout). */
  abort(reason: unknown): void {
    this.#end(reason);
  }

  dispose(): void {
    deadlineClock.unwatch(this.#due);
    this.#listener = undefined;
    this.#caller?.removeEventListener('abort', this.#onCallerAbort);
  }

  /** The first end wins, as with `AbortController.abort`. */
  #end(reason: unknown): void {
    deadlineClock.unwatch(this.#due);
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    const listener = this.#listener;
    this.#listener = undefined;
    listener?.(reason);
  }
}
