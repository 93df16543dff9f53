/**
 * `KernelClient`: runs code in one IPython kernel it owns, over any `KernelBackend` (the ZeroMQ
 * backend by default). How a kernel is brought up is in `kernelStart.ts`.
 *
 * - Executions run one at a time, in submission order.
 * - A kernel that dies fails the running call with `KERNEL_DIED`; the next call starts a new one.
 * - The start-up timeout and per-call execution timeouts are separate budgets.
 * - A timeout or cancel interrupts the cell and keeps the kernel's state; a cell that ignores the
 *   interrupt for `interruptTimeout` ms gets its kernel restarted instead.
 *
 * @module
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { currentTraceContext } from '@mcpbox/framework';
import type { KernelBackend, KernelExit } from './backends/backend.ts';
import { chooseKernelBackend } from './backends/choose.ts';
import { TimeoutBudget } from './budget.ts';
import { chunkStream } from './chunkStream.ts';
import { KernelError } from './errors.ts';
import { Execution, type ExecutionResult, type InterruptReason } from './execution.ts';
import { ExecutionQueue } from './executionQueue.ts';
import {
  type ActiveKernel,
  applyEnvironment,
  type KernelStartSettings,
  seconds,
  startKernel,
} from './kernelStart.ts';
import type { ExecutionChunk } from './output.ts';

/** Selects matplotlib's inline backend, so figures come back as PNG without any user setup. */
const INLINE_MATPLOTLIB = 'module://matplotlib_inline.backend_inline';

export interface KernelClientOptions {
  /** How kernels are started. Default: `chooseKernelBackend()`'s (local ipykernel over ZeroMQ). */
  backend?: KernelBackend;
  /**
   * Variables for the kernel. The kernel sees only `PATH` (this process's), `MPLBACKEND` (inline)
   * and these; nothing else of this process's environment leaks in. Entries here win.
   */
  env?: Record<string, string>;
  /** The kernel's working directory. Default: this process's. */
  cwd?: string;
  /** Where images from the output are saved. Default `<os tmpdir>/mcpbox-images`. */
  imagesDir?: string;
  /** Milliseconds for a kernel to start and answer its first `kernel_info`. Default 30000. */
  startTimeout?: number;
  /** Milliseconds an interrupted cell may take to stop before its kernel is restarted. Default 5000. */
  interruptTimeout?: number;
}

export interface ExecuteOptions {
  /**
   * Milliseconds the cell may run (time queued behind other cells excluded), or a
   * `TimeoutBudget` the caller can pause (e.g. while a tool call awaits approval). Default: no limit.
   */
  timeout?: number | TimeoutBudget;
  /** Aborting interrupts the cell; the call then fails with `EXECUTION_CANCELLED`. */
  signal?: AbortSignal;
  /**
   * Receives each output chunk as it arrives, before the call resolves: `stream()`'s chunks
   * without an async iterator between the kernel and the caller (a few microtask hops less per
   * cell, which counts for a server answering many small cells). Called synchronously; it must
   * not throw.
   */
  onChunk?: (chunk: ExecutionChunk) => void;
  /**
   * Called when the cell's turn comes (every call submitted before it has finished), right
   * before it starts; what it returns is called once the cell has ended. What belongs to the
   * running cell only (ipybox's approver) is set up here, so callers need no queue of their own.
   */
  onTurn?: () => () => void;
}

interface CurrentExecution {
  execution: Execution;
  active: ActiveKernel;
  interrupt(reason: InterruptReason): void;
}

/** Rejects what would otherwise hang: a request without code is never answered by ipykernel. */
function checkCall(code: unknown, options: ExecuteOptions): void {
  if (typeof code !== 'string') throw new TypeError(`code must be a string, got ${typeof code}`);
  const { timeout } = options;
  // A number is checked by the budget it becomes; a budget serves exactly one call.
  if (timeout !== undefined && !(timeout instanceof TimeoutBudget)) new TimeoutBudget(timeout);
}

export class KernelClient {
  #backend: KernelBackend;
  readonly #env: Record<string, string>;
  readonly #cwd: string | undefined;
  readonly #imagesDir: string;
  readonly #startTimeout: number;
  readonly #interruptTimeout: number;
  /** Set by `useBackend`: taken when the next kernel starts (the running one keeps its own). */
  #nextBackend: KernelBackend | undefined;
  #active: ActiveKernel | undefined;
  #starting: Promise<ActiveKernel> | undefined;
  #current: CurrentExecution | undefined;
  readonly #queue = new ExecutionQueue(() => this.#closed);
  /** A remote kernel lost while no cell ran: told to the next call, once (see `remote`). */
  #lost: KernelError | undefined;
  #closed = false;

  constructor(options: KernelClientOptions = {}) {
    this.#backend = options.backend ?? chooseKernelBackend();
    this.#env = {
      PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
      MPLBACKEND: INLINE_MATPLOTLIB,
      ...options.env,
    };
    this.#cwd = options.cwd;
    this.#imagesDir = options.imagesDir ?? join(tmpdir(), 'mcpbox-images');
    this.#startTimeout = options.startTimeout ?? 30_000;
    this.#interruptTimeout = options.interruptTimeout ?? 5_000;
  }

  /** The running kernel's process id, if one runs (locally). */
  get pid(): number | undefined {
    return this.#active?.kernel.pid;
  }

  /** Starts the kernel now instead of at the first call. */
  async start(): Promise<void> {
    await this.#ensureKernel();
  }

  /**
   * Runs `code` and resolves with its output. Rejects with `CodeExecutionError` when the code
   * raises, `KernelError` for timeouts, cancels, kernel death and start-up failures.
   */
  execute(code: string, options: ExecuteOptions = {}): Promise<ExecutionResult> {
    try {
      checkCall(code, options);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#queue.add(() => this.#run(code, options, options.onChunk), options);
  }

  /**
   * Runs `work` in turn with the executions: after every call submitted before it has finished,
   * and before any submitted after it starts (`cancel()` drops it like a queued cell).
   */
  inTurn<T>(work: () => Promise<T>): Promise<T> {
    return this.#queue.add(work);
  }

  /**
   * The backend the next kernel starts with (a new interpreter); a running kernel keeps its own
   * until it ends or is reset.
   */
  useBackend(backend: KernelBackend): void {
    this.#nextBackend = backend;
  }

  /**
   * Runs `code`, yielding output chunks as they arrive and the `ExecutionResult` last. Errors are
   * thrown by the iterator after the chunks before them. Leaving the loop early cancels the cell.
   */
  async *stream(
    code: string,
    options: ExecuteOptions = {},
  ): AsyncGenerator<ExecutionChunk | ExecutionResult, void, undefined> {
    checkCall(code, options);
    yield* chunkStream(options.signal, (signal, onChunk) =>
      this.#queue.add(() => this.#run(code, { timeout: options.timeout, signal }, onChunk), {
        signal,
      }),
    );
  }

  /** Interrupts the running cell: `interrupt_request` on the control channel, a signal as fallback. */
  async interrupt(): Promise<void> {
    if (this.#active) await this.#interruptKernel(this.#active);
  }

  /** Interrupts the running cell and drops every call queued behind it (`EXECUTION_CANCELLED`). */
  cancel(): void {
    this.#queue.dropQueued();
    this.cancelRunning();
  }

  /** Interrupts the running cell (`EXECUTION_CANCELLED`); the calls queued behind it still run. */
  cancelRunning(): void {
    this.#current?.interrupt({
      code: 'EXECUTION_CANCELLED',
      message: 'The execution was cancelled.',
    });
  }

  /**
   * Replaces the kernel with a fresh one. The old kernel process (and its process group) is gone
   * when this resolves; a cell running in it fails with `EXECUTION_CANCELLED`.
   */
  async reset(): Promise<void> {
    this.#lost = undefined;
    const active = this.#active ?? (await this.#starting?.catch(() => undefined));
    if (active) {
      await this.#stopKernel(
        active,
        new KernelError(
          'EXECUTION_CANCELLED',
          'The kernel was reset while the cell ran; its state is gone.',
        ),
        { end: true },
      );
    }
    await this.#ensureKernel();
  }

  /** Stops the kernel; further calls fail with `CLIENT_CLOSED`. */
  async close(): Promise<void> {
    this.#closed = true;
    const active = this.#active ?? (await this.#starting?.catch(() => undefined));
    if (active) {
      await this.#stopKernel(
        active,
        new KernelError('CLIENT_CLOSED', 'The kernel client was closed while the cell ran.'),
      );
    }
  }

  async #run(
    code: string,
    options: ExecuteOptions,
    onChunk?: (chunk: ExecutionChunk) => void,
  ): Promise<ExecutionResult> {
    const lost = this.#lost;
    if (lost) {
      this.#lost = undefined;
      throw lost;
    }
    // A running kernel is used without an await (a turn per cell); the queue checked `closed`.
    const active = this.#active ?? (await this.#ensureKernel());
    if (this.#backend.shared) await applyEnvironment(active, this.#startSettings());
    const { connection } = active;
    const execution = new Execution(this.#imagesDir, onChunk);
    const request = connection.session.message('execute_request', {
      code,
      silent: false,
      store_history: true,
      user_expressions: {},
      // Nobody is there to type: input() raises StdinNotImplementedError instead of waiting.
      allow_stdin: false,
      // Calls are queued here, never in the kernel, so there is nothing for the kernel to abort
      // after an error; with `true` ipykernel also aborts a request that arrives right after an
      // error reply, before it has left its aborting state (a race seen after interrupts).
      stop_on_error: false,
    });
    // The cell's trace context (none without tracing), for the tool calls its code makes: the
    // generated runtime (python/_runtime.py) reads it from the request and sends it on.
    Object.assign(request.metadata, currentTraceContext());
    const unroute = connection.route(request.header.msg_id, (channel, message) =>
      execution.handle(channel, message),
    );
    const timers: NodeJS.Timeout[] = [];
    const budget =
      typeof options.timeout === 'number' ? new TimeoutBudget(options.timeout) : options.timeout;
    const interrupt = (reason: InterruptReason) => {
      if (execution.settled) return;
      execution.markInterrupted(reason);
      void this.#interruptKernel(active);
      const grace = setTimeout(() => {
        const message = `${reason.message} The cell did not stop within ${seconds(this.#interruptTimeout)} of the interrupt, so the kernel was restarted: its state is lost.`;
        void this.#stopKernel(
          active,
          new KernelError(reason.code, message, { output: execution.output }),
          { end: true },
        );
      }, this.#interruptTimeout);
      grace.unref();
      timers.push(grace);
    };
    const onAbort = () =>
      interrupt({ code: 'EXECUTION_CANCELLED', message: 'The execution was cancelled.' });
    this.#current = { execution, active, interrupt };
    try {
      options.signal?.addEventListener('abort', onAbort, { once: true });
      if (options.signal?.aborted) onAbort();
      if (budget) {
        const paused = options.timeout instanceof TimeoutBudget ? ' (paused time not counted)' : '';
        budget.start(() =>
          interrupt({
            code: 'EXECUTION_TIMEOUT',
            message: `The code ran longer than its timeout of ${seconds(budget.total)}${paused} and was interrupted.`,
          }),
        );
      }
      connection.channels.send('shell', request).catch((error: Error) => execution.fail(error));
      return await execution.done;
    } finally {
      unroute();
      for (const timer of timers) clearTimeout(timer);
      budget?.stop();
      options.signal?.removeEventListener('abort', onAbort);
      if (this.#current?.execution === execution) this.#current = undefined;
    }
  }

  async #interruptKernel(active: ActiveKernel): Promise<void> {
    try {
      await active.connection.request('control', 'interrupt_request', {}, 1000);
    } catch {
      await active.kernel.interrupt().catch(() => {});
    }
  }

  #ensureKernel(): Promise<ActiveKernel> {
    if (this.#closed) {
      return Promise.reject(new KernelError('CLIENT_CLOSED', 'The kernel client is closed.'));
    }
    if (this.#active) return Promise.resolve(this.#active);
    if (!this.#starting && this.#nextBackend) {
      this.#backend = this.#nextBackend;
      this.#nextBackend = undefined;
    }
    this.#starting ??= this.#startKernel().finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  async #startKernel(): Promise<ActiveKernel> {
    const active = await startKernel(this.#backend, this.#startSettings());
    if (this.#closed) {
      await active.kernel.stop();
      throw new KernelError('CLIENT_CLOSED', 'The kernel client was closed during start-up.');
    }
    this.#active = active;
    void active.kernel.exited.then((exit) => this.#onKernelGone(active, exit));
    return active;
  }

  #onKernelGone(active: ActiveKernel, exit: KernelExit): void {
    if (active.stopping) return;
    if (this.#backend.remote && this.#current?.active !== active) {
      // Nobody is told by a failing cell: without this, the next cell would run in a fresh
      // kernel and fail on a missing name (or worse, compute on missing state) without saying why.
      this.#lost = new KernelError(
        'KERNEL_DIED',
        `The kernel was lost while no cell ran (${exit.reason}): its variables and imports are gone. Nothing ran. Call again to start a fresh kernel, and re-run the cells it needs.`,
      );
    }
    const error = new KernelError(
      'KERNEL_DIED',
      `The kernel died (${exit.reason}); its state is lost. The next call starts a new kernel.`,
      { output: this.#current?.active === active ? this.#current.execution.output : undefined },
    );
    // Also removes the dead kernel's files and anything left in its process group.
    void this.#stopKernel(active, error);
  }

  #startSettings(): KernelStartSettings {
    return { env: this.#env, cwd: this.#cwd, startTimeout: this.#startTimeout };
  }

  /** `end`: the kernel's state is discarded, also for whoever shares it (`RunningKernel.end`). */
  async #stopKernel(
    active: ActiveKernel,
    reason: KernelError,
    { end = false }: { end?: boolean } = {},
  ): Promise<void> {
    active.stopping ??= reason;
    if (this.#active === active) this.#active = undefined;
    if (this.#current?.active === active) this.#current.execution.fail(reason);
    await (end && active.kernel.end ? active.kernel.end() : active.kernel.stop());
  }
}
