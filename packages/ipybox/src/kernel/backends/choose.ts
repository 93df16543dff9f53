/**
 * The one place a kernel backend is chosen from settings: a Jupyter Server when one is
 * configured, else the OS sandbox when asked for, else the ZeroMQ backend (local `ipykernel`).
 * `CodeExecutor`, `KernelClient` and ipybox's kernel sessions all call it, so a new backend is
 * one branch here.
 *
 * @module
 */
import type { SandboxSettings } from '../../sandbox/sandboxConfig.ts';
import type { KernelTransport } from '../connectionFile.ts';
import type { KernelBackend } from './backend.ts';
import { type JupyterServerBackendOptions, jupyterServerBackend } from './jupyterServer.ts';
import { zmqKernelBackend } from './zeromq.ts';

export interface KernelBackendChoice {
  /** Interpreter with ipykernel (local backends). */
  python?: string;
  /** Kernel channels over loopback `tcp` or `ipc` Unix sockets (the ZeroMQ backend). */
  transport?: KernelTransport;
  /** Run the kernel in the OS sandbox: `true` for the default policy, or settings merged in. */
  sandbox?: boolean | SandboxSettings;
  /** A sandbox-runtime settings file (JSON); implies `sandbox`. */
  sandboxConfig?: string;
  /** Run kernels on this Jupyter Server instead of locally; the options above are then ignored. */
  jupyterServer?: JupyterServerBackendOptions;
}

export function chooseKernelBackend(choice: KernelBackendChoice = {}): KernelBackend {
  if (choice.jupyterServer) return jupyterServerBackend(choice.jupyterServer);
  const { sandbox, sandboxConfig, python } = choice;
  if (sandbox || sandboxConfig !== undefined) return lazySandboxBackend(choice);
  return zmqKernelBackend({ python, transport: choice.transport });
}

/**
 * The sandbox backend, loaded with the first sandboxed kernel: the sandbox (and sandbox-runtime,
 * heavy to load) stays out of an ipybox started without --sandbox.
 */
function lazySandboxBackend({
  sandbox,
  sandboxConfig,
  python,
}: KernelBackendChoice): KernelBackend {
  let backend: Promise<KernelBackend> | undefined;
  return {
    name: 'sandbox',
    async start(startOptions) {
      backend ??= import('./sandbox.ts').then(({ sandboxKernelBackend }) =>
        sandboxKernelBackend({
          python,
          settings: typeof sandbox === 'object' ? sandbox : undefined,
          settingsFile: sandboxConfig,
        }),
      );
      return (await backend).start(startOptions);
    },
  };
}
