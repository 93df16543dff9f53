/**
 * `CodeExecutor`: the facade applications use to run Python — one stateful kernel, started on
 * demand, with timeouts, cancel and reset. Mirrors the Python ipybox `CodeExecutor` (`start`,
 * `stop`, `reset`, `cancel`, `execute`, `stream`); the tool server and approvals plug in here.
 *
 * Differences from the Python original, on purpose: times are milliseconds; a cancelled
 * execution rejects with `EXECUTION_CANCELLED` instead of resolving with an empty result; the
 * start-up timeout never eats into the execution timeout.
 *
 * @module
 */
import type { KernelBackend } from './kernel/backends/backend.ts';
import { chooseKernelBackend } from './kernel/backends/choose.ts';
import { type ExecuteOptions, KernelClient } from './kernel/client.ts';
import type { KernelTransport } from './kernel/connectionFile.ts';
import type { ExecutionResult } from './kernel/execution.ts';
import type { ExecutionChunk } from './kernel/output.ts';
import type { SandboxSettings } from './sandbox/sandboxConfig.ts';

export interface CodeExecutorOptions {
  /** Variables for the kernel, on top of `PATH` (nothing else of this process's environment). */
  kernelEnv?: Record<string, string>;
  /** The kernel's working directory. Default: this process's. */
  workingDir?: string;
  /** Where images from the output are saved. Default `<os tmpdir>/mcpbox-images`. */
  imagesDir?: string;
  /** Interpreter with ipykernel. Default `/usr/bin/python3` (Debian's python3-ipykernel). */
  python?: string;
  /** Kernel channels over loopback `tcp` (default) or `ipc` Unix sockets. */
  transport?: KernelTransport;
  /** Milliseconds for the kernel to start and become ready. Default 30000. */
  startTimeout?: number;
  /** Milliseconds an interrupted cell may take to stop before the kernel is restarted. Default 5000. */
  interruptTimeout?: number;
  /** Run kernels elsewhere (another backend); `python` and `transport` are then ignored. */
  backend?: KernelBackend;
  /**
   * Run the kernel and everything it starts inside the OS sandbox (`@anthropic-ai/sandbox-runtime`,
   * Linux: bubblewrap + socat + ripgrep): `true` for the default policy, or sandbox-runtime
   * settings merged into it. Forces the `ipc` transport. See the README's Sandbox section.
   */
  sandbox?: boolean | SandboxSettings;
  /** A sandbox-runtime settings file (JSON), validated at start; implies `sandbox`. */
  sandboxConfig?: string;
}

export type { ExecuteOptions };

export interface StreamOptions extends ExecuteOptions {
  /** Yield output chunks as they arrive, not only the final result. Default false. */
  chunks?: boolean;
}

export class CodeExecutor {
  readonly #client: KernelClient;

  constructor(options: CodeExecutorOptions = {}) {
    this.#client = new KernelClient({
      backend: options.backend ?? chooseKernelBackend(options),
      env: options.kernelEnv,
      cwd: options.workingDir,
      imagesDir: options.imagesDir,
      startTimeout: options.startTimeout,
      interruptTimeout: options.interruptTimeout,
    });
  }

  /** The kernel's process id while one runs locally. */
  get kernelPid(): number | undefined {
    return this.#client.pid;
  }

  /** Starts the kernel (otherwise the first call does). */
  async start(): Promise<void> {
    await this.#client.start();
  }

  /** Stops the kernel; the executor cannot be used afterwards. */
  async stop(): Promise<void> {
    await this.#client.close();
  }

  /** A fresh kernel: every variable and import is gone, the old process has exited. */
  async reset(): Promise<void> {
    await this.#client.reset();
  }

  /** Interrupts the running cell and drops queued ones. */
  cancel(): void {
    this.#client.cancel();
  }

  /** Interrupts the running cell; the ones queued behind it still run. */
  cancelRunning(): void {
    this.#client.cancelRunning();
  }

  /** Runs `work` in turn with the cells (see `KernelClient.inTurn`). */
  inTurn<T>(work: () => Promise<T>): Promise<T> {
    return this.#client.inTurn(work);
  }

  /** The backend the next kernel starts with (see `KernelClient.useBackend`). */
  useBackend(backend: KernelBackend): void {
    this.#client.useBackend(backend);
  }

  /** Runs `code`; `options.onChunk` sees the output as it arrives (see `ExecuteOptions`). */
  execute(code: string, options: ExecuteOptions = {}): Promise<ExecutionResult> {
    return this.#client.execute(code, options);
  }

  async *stream(
    code: string,
    options: StreamOptions = {},
  ): AsyncGenerator<ExecutionChunk | ExecutionResult, void, undefined> {
    for await (const item of this.#client.stream(code, options)) {
      if (options.chunks || item.kind === 'result') yield item;
    }
  }
}
