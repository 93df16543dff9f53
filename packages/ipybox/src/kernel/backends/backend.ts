/**
 * The contract every kernel backend satisfies: start a kernel, hand over its channels, interrupt
 * it the backend's own way, stop it. `KernelClient` speaks the protocol over any backend. The
 * ZeroMQ backend (`zeromq.ts`) is the default; the Jupyter Server (REST + WebSocket) backend
 * (`jupyterServer.ts`) and the OS-sandboxed one (`sandbox.ts`) sit behind the same interface,
 * and `choose.ts` picks one from the settings.
 *
 * @module
 */
import type { KernelChannels } from '../channels.ts';

export interface KernelStartOptions {
  /** The kernel's whole environment (the client builds it: PATH plus the caller's variables). */
  env: Record<string, string>;
  /** Working directory of the kernel; the backend's default when undefined. */
  cwd: string | undefined;
  /** Aborted when the start-up deadline passes: the backend ends what it started and rejects. */
  signal: AbortSignal;
}

/** Why a kernel is gone, e.g. `exited with code 1`, `killed by SIGKILL`, `stopped answering heartbeats`. */
export interface KernelExit {
  reason: string;
}

export interface RunningKernel {
  readonly channels: KernelChannels;
  /** The kernel's process id when it runs on this machine. */
  readonly pid: number | undefined;
  /** Settles once, when the kernel is gone for any reason (including `stop()`). */
  readonly exited: Promise<KernelExit>;
  /** Interrupts the running cell without the protocol (signal, REST call): the fallback path. */
  interrupt(): Promise<void>;
  /** Ends the kernel and everything it started, and removes its files. Idempotent. */
  stop(): Promise<void>;
  /**
   * Ends it for everyone, when `stop()` only lets go of a kernel others share (a shared kernel
   * on a Jupyter Server): what a reset or a restart of a stuck kernel needs.
   */
  end?(): Promise<void>;
}

export interface KernelBackend {
  readonly name: string;
  /**
   * True for kernels that live elsewhere (a Jupyter Server): `start()` cannot hand them `env` and
   * `cwd` (the REST API has no field for them), so the client sets both by a silent cell after
   * the handshake; and a kernel lost while no cell ran (its server restarted) is reported to the
   * next call instead of that call running in a fresh kernel without the state it expects.
   */
  readonly remote?: boolean;
  /**
   * True when other clients drive the same kernels (cluster mode: every replica): one of them may
   * have pointed the kernel at its own tool server, so the environment is set again before each
   * cell (one more round trip per cell).
   */
  readonly shared?: boolean;
  /** Starts a kernel whose channels are connected (readiness is the client's handshake). */
  start(options: KernelStartOptions): Promise<RunningKernel>;
}
