/**
 * A kernel backend that runs `ipykernel` inside `@anthropic-ai/sandbox-runtime` (bubblewrap on
 * Linux): the ZeroMQ launcher with the `ipc` transport (the sandbox has no network namespace, so
 * the kernel's channels are Unix sockets) and its command line rewritten through the sandbox.
 *
 * Each kernel gets a private 0700 runtime directory, writable inside the sandbox: the launcher's
 * kernel directory (connection file, IPython profile, sockets) and a `TMPDIR` (ipykernel needs a
 * usable temp dir, and sandbox-runtime points `TMPDIR` at a directory that may not exist).
 *
 * Who ends what: bwrap is our direct child and the process-group leader the launcher stops; it
 * runs with `--die-with-parent` and its own PID namespace, so when bwrap dies (stopped, or this
 * process SIGKILLed) the kernel and everything it started die with it. The host-side socat
 * bridges die with this process through `socat-with-parent.sh`.
 *
 * @module
 */
import { rmSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { findProgram } from '@mcpbox/framework';
import { makeOwnedDir, sweepDeadOwnersOnce } from '../../ownedDirs.ts';
import { checkSandboxHost } from '../../sandbox/preflight.ts';
import {
  loadSandboxConfig,
  type SandboxSettings,
  sandboxPolicy,
  validateSandboxSettings,
} from '../../sandbox/sandboxConfig.ts';
import { acquireSandbox } from '../../sandbox/sandboxRuntime.ts';
import { SOCAT_WITH_PARENT } from '../../sandbox/socatWithParent.ts';
import { sweepStaleSandboxSockets } from '../../sandbox/staleSockets.ts';
import type { KernelBackend, KernelStartOptions, RunningKernel } from './backend.ts';
import { zmqKernelBackend } from './zeromq.ts';

let socketSweep: Promise<unknown> | undefined;
/** Once per process, before its first sandbox: the sockets dead sandboxes left. */
const sweepSandboxSocketsOnce = () => {
  socketSweep ??= sweepStaleSandboxSockets();
  return socketSweep;
};

export interface SandboxKernelBackendOptions {
  /** Python interpreter with ipykernel. Default `/usr/bin/python3`. */
  python?: string;
  /** sandbox-runtime settings (same format as the file); merged into the default policy. */
  settings?: SandboxSettings;
  /** A sandbox-runtime settings file (JSON), read and validated at every kernel start. */
  settingsFile?: string;
  /** Receives the kernel's own log output (its stderr). */
  onLog?: (text: string) => void;
}

/** Runtime directories to remove if Node exits without stopping their kernels. */
const liveRuntimeDirs = new Set<string>();
let exitHookInstalled = false;

function trackRuntimeDir(dir: string): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const path of liveRuntimeDirs) rmSync(path, { recursive: true, force: true });
    });
  }
  liveRuntimeDirs.add(dir);
}

/** The socat sandbox-runtime should run: one that dies with us, when `setpriv` is there. */
function socatPath(): string | undefined {
  return findProgram('setpriv', process.env.PATH) ? SOCAT_WITH_PARENT : undefined;
}

/**
 * Everything a sandboxed start checks before it starts anything: host programs and user
 * namespaces, then the settings. Throws `SandboxUnavailableError` or `SandboxConfigError`.
 */
export async function checkSandboxSetup(
  options: Pick<SandboxKernelBackendOptions, 'settings' | 'settingsFile'> = {},
): Promise<SandboxSettings> {
  checkSandboxHost();
  if (options.settingsFile !== undefined) {
    const fromFile = await loadSandboxConfig(options.settingsFile);
    return { ...fromFile, ...options.settings };
  }
  if (options.settings !== undefined) validateSandboxSettings(options.settings);
  return options.settings ?? {};
}

export function sandboxKernelBackend(options: SandboxKernelBackendOptions = {}): KernelBackend {
  async function start(startOptions: KernelStartOptions): Promise<RunningKernel> {
    const settings = await checkSandboxSetup(options);
    const workspace = resolve(startOptions.cwd ?? process.cwd());
    await sweepDeadOwnersOnce(tmpdir());
    await sweepSandboxSocketsOnce();
    const runtimeDir = await makeOwnedDir(tmpdir(), 'mcpbox-sandbox-');
    trackRuntimeDir(runtimeDir);
    const removeRuntimeDir = async () => {
      liveRuntimeDirs.delete(runtimeDir);
      await rm(runtimeDir, { recursive: true, force: true });
    };
    let release = async () => {};
    try {
      const tempDir = join(runtimeDir, 'tmp');
      await mkdir(tempDir, { mode: 0o700 });
      const policy = sandboxPolicy({ workspace, runtimeDir, settings, socatPath: socatPath() });
      const lease = await acquireSandbox(policy);
      release = () => lease.release();
      const kernel = await zmqKernelBackend({
        python: options.python,
        transport: 'ipc',
        runtimeDir,
        onLog: options.onLog,
        wrap: (argv) =>
          lease.wrap(argv, {
            env: { TMPDIR: tempDir },
            // Both parent watches compare pids the PID namespace renumbers (ipykernel's poller
            // sees parent pid 1 and exits); the namespace itself makes the kernel die with bwrap.
            unsetEnv: ['MCPBOX_PARENT_PID', 'JPY_PARENT_PID'],
          }),
      }).start(startOptions);
      let stopping: Promise<void> | undefined;
      return {
        channels: kernel.channels,
        pid: kernel.pid,
        exited: kernel.exited,
        // The launcher's fallback signals the process group, which here is bwrap alone: SIGINT
        // would kill the whole sandbox, and no signal from outside reaches the kernel in its
        // PID namespace. So there is no fallback; the client's interrupt_request (control
        // channel) is the way in, and a kernel that ignores it is restarted after the grace.
        interrupt: async () => {},
        stop() {
          stopping ??= (async () => {
            try {
              await kernel.stop();
            } finally {
              await release();
              await removeRuntimeDir();
            }
          })();
          return stopping;
        },
      };
    } catch (error) {
      await release();
      await removeRuntimeDir();
      throw error;
    }
  }
  return { name: 'sandbox', start };
}
