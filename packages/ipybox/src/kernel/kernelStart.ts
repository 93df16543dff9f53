/**
 * Bringing a kernel up for `KernelClient`: the backend's start and the protocol handshake within
 * one start-up deadline, and a remote kernel's environment (variables, working directory) given
 * by a silent cell. A kernel that fails any step is stopped before the error is thrown.
 *
 * @module
 */
import type { KernelBackend, RunningKernel } from './backends/backend.ts';
import { KernelConnection } from './connection.ts';
import { KernelError } from './errors.ts';
import { remoteEnvironmentCell } from './remoteEnv.ts';

/** A started kernel with its protocol connection. */
export interface ActiveKernel {
  kernel: RunningKernel;
  connection: KernelConnection;
  /** Set when the client ends the kernel on purpose; its exit is then no death. */
  stopping?: KernelError;
}

export interface KernelStartSettings {
  /** The kernel's whole environment. */
  env: Record<string, string>;
  /** The kernel's working directory; the backend's default when undefined. */
  cwd: string | undefined;
  /** Milliseconds for the kernel to start and answer its first `kernel_info`. */
  startTimeout: number;
}

export const seconds = (ms: number) => `${Number((ms / 1000).toFixed(3))} s`;

/** Starts a kernel on `backend` and waits until it answers, all within `startTimeout`. */
export async function startKernel(
  backend: KernelBackend,
  settings: KernelStartSettings,
): Promise<ActiveKernel> {
  const deadline = new AbortController();
  const timeoutError = new KernelError(
    'KERNEL_START_TIMEOUT',
    `The kernel did not become ready within the start-up timeout of ${seconds(settings.startTimeout)} (execution timeouts are separate).`,
  );
  const timer = setTimeout(() => deadline.abort(timeoutError), settings.startTimeout);
  try {
    let kernel: RunningKernel;
    try {
      kernel = await backend.start({
        env: settings.env,
        cwd: settings.cwd,
        signal: deadline.signal,
      });
    } catch (error) {
      throw deadline.signal.aborted && (error as KernelError).code === 'KERNEL_START_TIMEOUT'
        ? timeoutError
        : error;
    }
    const active: ActiveKernel = { kernel, connection: new KernelConnection(kernel.channels) };
    const handshake = new AbortController();
    const onDeadline = () => handshake.abort(timeoutError);
    deadline.signal.addEventListener('abort', onDeadline, { once: true });
    void kernel.exited.then(({ reason }) =>
      handshake.abort(
        new KernelError('KERNEL_START_FAILED', `The kernel ${reason} during start-up.`),
      ),
    );
    try {
      await active.connection.waitUntilReady(handshake.signal);
      if (backend.remote) await applyEnvironment(active, settings);
      if (deadline.signal.aborted) throw deadline.signal.reason;
    } catch (error) {
      await kernel.stop();
      throw error;
    } finally {
      deadline.signal.removeEventListener('abort', onDeadline);
    }
    return active;
  } finally {
    clearTimeout(timer);
  }
}

/** Gives a remote kernel its variables and working directory (see `KernelBackend.remote`). */
export async function applyEnvironment(
  active: ActiveKernel,
  settings: KernelStartSettings,
): Promise<void> {
  const reply = await active.connection.request(
    'shell',
    'execute_request',
    {
      code: remoteEnvironmentCell(settings.env, settings.cwd),
      silent: true,
      store_history: false,
      user_expressions: {},
      allow_stdin: false,
      stop_on_error: false,
    },
    settings.startTimeout,
  );
  if (reply.content.status !== 'ok') {
    throw new KernelError(
      'KERNEL_START_FAILED',
      `The kernel could not be given its environment (${String(reply.content.ename)}: ${String(reply.content.evalue)}).`,
    );
  }
}
