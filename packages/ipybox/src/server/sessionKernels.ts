/**
 * `SessionKernels`: one {@link KernelSession} per MCP session, opened on the session's first call.
 *
 * Under stdio there is one session (no session id), so one kernel. Over HTTP each 2025 session
 * id gets its own; at most `maxKernels` exist at once (a clear error past it), and a session idle for
 * `kernelIdleTimeoutMs` loses its kernel (its next call starts a fresh one). The framework does
 * not tell plugins when an HTTP session closes, so idle reaping is what frees those kernels.
 *
 * A 2026-07-28 request has no session id: over stdio that is still one kernel per client process,
 * but over HTTP every 2026 caller lands on the one `default` kernel. Keying kernels by caller
 * (principal or a server-minted handle) instead of by session is not done yet.
 *
 * @module
 */
import { createLogger, type Logger } from '@mcpbox/framework';
import { KernelSession, type KernelSessionContext } from './kernelSession.ts';

/** Key of the single session of a transport without session ids (stdio). */
export const DEFAULT_SESSION = 'default';

export class KernelLimitError extends Error {
  constructor(max: number, idleSeconds: number) {
    super(
      `ipybox: no kernel available for this session: all ${max} kernels (max_kernels) are in use by other sessions. ` +
        `Close another MCP session, or wait until an idle one is reaped (kernel_idle_timeout = ${idleSeconds} s).`,
    );
    this.name = 'KernelLimitError';
  }
}

export class SessionKernels {
  readonly #context: KernelSessionContext;
  readonly #logger: Logger;
  readonly #sessions = new Map<string, Promise<KernelSession>>();
  readonly #reaper: NodeJS.Timeout;
  #closed = false;

  constructor(context: KernelSessionContext) {
    this.#context = context;
    this.#logger = context.logger ?? createLogger('ipybox');
    const idle = context.settings.kernelIdleTimeoutMs;
    this.#reaper = setInterval(() => void this.reapIdle(), Math.min(idle, 60_000));
    this.#reaper.unref();
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** The session's kernel session, opened on first use. */
  get(sessionId: string | undefined): Promise<KernelSession> {
    if (this.#closed) return Promise.reject(new Error('ipybox is shutting down'));
    const key = sessionId ?? DEFAULT_SESSION;
    const existing = this.#sessions.get(key);
    if (existing) return existing;
    const { maxKernels, kernelIdleTimeoutMs } = this.#context.settings;
    if (this.#sessions.size >= maxKernels) {
      return Promise.reject(new KernelLimitError(maxKernels, kernelIdleTimeoutMs / 1000));
    }
    const opening = KernelSession.open(key, this.#context);
    this.#sessions.set(key, opening);
    opening.catch(() => this.#sessions.delete(key));
    return opening;
  }

  /** Sessions already open (for broadcasting a new server or a new venv). */
  async open(): Promise<KernelSession[]> {
    const settled = await Promise.allSettled(this.#sessions.values());
    return settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  }

  /** Closes one session's kernel (its next call opens a new one). */
  async end(sessionId: string | undefined): Promise<void> {
    const key = sessionId ?? DEFAULT_SESSION;
    const session = this.#sessions.get(key);
    if (!session) return;
    this.#sessions.delete(key);
    await (await session.catch(() => undefined))?.close();
  }

  /** Closes kernels of HTTP sessions idle longer than the timeout. Returns how many. */
  async reapIdle(now = Date.now()): Promise<number> {
    let reaped = 0;
    for (const session of await this.open()) {
      if (session.id === DEFAULT_SESSION || session.busy) continue;
      if (now - session.lastUsed < this.#context.settings.kernelIdleTimeoutMs) continue;
      this.#logger.info(`ipybox: closing the idle kernel of session ${session.id}`);
      await this.end(session.id);
      reaped += 1;
    }
    return reaped;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#reaper);
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.allSettled(sessions.map(async (s) => (await s.catch(() => undefined))?.close()));
  }
}
