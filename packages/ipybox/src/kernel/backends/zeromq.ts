/**
 * The ZeroMQ kernel backend: launches `ipykernel` as a child process and connects to it directly.
 *
 * - A private 0700 directory per kernel holds the connection file (random HMAC key, mode 0600),
 *   IPython's profile directory and, for the `ipc` transport, the Unix sockets. It names its
 *   owner (`ownedDirs.ts`), so what a SIGKILLed owner left is swept by the next launch.
 * - Ports are chosen by the kernel itself (connection file ports are 0) and reported on stdout by
 *   `bootstrap.py`, so there is no race between choosing a port and binding it.
 * - The kernel leads its own process group (`detached`), so `stop()` ends the kernel and whatever
 *   it spawned; the bootstrap makes the kernel die with its parent even when the parent is
 *   SIGKILLed (PR_SET_PDEATHSIG), and forks a watchdog that then ends the rest of the group (what
 *   cells started), which would otherwise live on under PID 1.
 *
 * @module
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { constants as osConstants, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeOwnedDir, sweepDeadOwnersOnce } from '../../ownedDirs.ts';
import {
  type ConnectionInfo,
  channelAddress,
  type KernelTransport,
  newConnectionInfo,
  writeConnectionFile,
} from '../connectionFile.ts';
import { KernelError } from '../errors.ts';
import { Heartbeat } from '../heartbeat.ts';
import { checkInterpreter, INSTALL_HINT } from '../pythonCheck.ts';
import { DEFAULT_PYTHON } from '../pythonProbe.ts';
import { ZmqChannels } from '../zmqChannels.ts';
import type { KernelBackend, KernelExit, KernelStartOptions, RunningKernel } from './backend.ts';

export { DEFAULT_PYTHON };

const BOOTSTRAP = join(dirname(fileURLToPath(import.meta.url)), '..', 'bootstrap.py');
const READY_PREFIX = 'MCPBOX_KERNEL_READY ';
/** Keep this much of the kernel's stderr for start-up error messages. */
const STDERR_TAIL = 4000;

export interface ZmqKernelBackendOptions {
  /** Python interpreter with ipykernel. Default `/usr/bin/python3`. */
  python?: string;
  /** `tcp` (loopback, default) or `ipc` (Unix sockets in the kernel's private directory). */
  transport?: KernelTransport;
  /** Where the per-kernel private directories are created. Default: the OS temp directory. */
  runtimeDir?: string;
  /** Extra `IPKernelApp` arguments, e.g. `['--IPKernelApp.log_level=DEBUG']`. */
  kernelArgs?: string[];
  /** Heartbeat ping period in ms. Default 2000. */
  heartbeatInterval?: number;
  /** A kernel silent on its heartbeat for this many ms is declared dead and killed. Default 20000. */
  heartbeatTimeout?: number;
  /**
   * Rewrites the kernel's command line before it is spawned, e.g. to run it inside a sandbox:
   * `(argv) => ['srt', '--settings', file, ...argv]`. The wrapper becomes the process-group
   * leader that `stop()` ends; it must pass stdout through (the kernel reports its ports there).
   * May be async (the sandbox computes its command line).
   */
  wrap?: (argv: string[]) => string[] | Promise<string[]>;
  /** Receives the kernel's own log output (its stderr); discarded by default. */
  onLog?: (text: string) => void;
}

/** Kernels alive in this process, killed synchronously if Node exits without stopping them. */
const liveKernels = new Set<{ pid: number; dir: string }>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const kernel of liveKernels) {
      killGroup(kernel.pid, 'SIGKILL');
      rmSync(kernel.dir, { recursive: true, force: true });
    }
  });
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  // Never kill(-0) or kill(-1): that would signal our own group or every process we may signal.
  if (pid === undefined || pid <= 1) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/**
 * Why a kernel process ended, naming the signal when there was one. A wrapper (the sandbox's
 * bwrap and shell) reports its child's death by signal N as exit code 128 + N, so for a wrapped
 * kernel such a code names the signal too: "killed by SIGSEGV", not "exited with code 139".
 */
export function describeExit(
  code: number | null,
  signal: NodeJS.Signals | null,
  wrapped = false,
): string {
  if (signal) return `killed by ${signal}`;
  const fromWrapper = wrapped && code !== null && code > 128 ? signalName(code - 128) : undefined;
  return fromWrapper ? `killed by ${fromWrapper}` : `exited with code ${code}`;
}

function signalName(signal: number): string | undefined {
  return Object.entries(osConstants.signals).find(([, n]) => n === signal)?.[0];
}

export function zmqKernelBackend(options: ZmqKernelBackendOptions = {}): KernelBackend {
  const settings: LaunchSettings = {
    python: options.python ?? DEFAULT_PYTHON,
    transport: options.transport ?? 'tcp',
    runtimeDir: options.runtimeDir ?? tmpdir(),
    // What SIGKILLed owners left in the temp directory (connection files with their signing
    // keys) goes first. A caller's own runtimeDir (a sandbox's) is the caller's to look after.
    sweepRuntimeDir: options.runtimeDir === undefined,
    kernelArgs: options.kernelArgs ?? [],
    heartbeatInterval: options.heartbeatInterval ?? 2000,
    heartbeatTimeout: options.heartbeatTimeout ?? 20000,
    wrap: options.wrap ?? ((argv: string[]) => argv),
    // A wrapper (the sandbox) reports a signal as exit code 128 + N.
    throughWrapper: options.wrap !== undefined,
    onLog: options.onLog,
  };
  return { name: 'zeromq', start: (startOptions) => startKernel(settings, startOptions) };
}

/** The backend's options with their defaults applied. */
interface LaunchSettings {
  python: string;
  transport: KernelTransport;
  runtimeDir: string;
  sweepRuntimeDir: boolean;
  kernelArgs: string[];
  heartbeatInterval: number;
  heartbeatTimeout: number;
  wrap: (argv: string[]) => string[] | Promise<string[]>;
  throughWrapper: boolean;
  onLog: ((text: string) => void) | undefined;
}

/** A spawned kernel process, before its channels are connected. */
interface SpawnedKernel {
  child: ChildProcess;
  exit: Promise<KernelExit>;
  stderrTail(): string;
  /** Kills the group, waits for the exit and removes the kernel's directory. */
  cleanup(): Promise<void>;
}

async function startKernel(
  settings: LaunchSettings,
  { env, cwd, signal }: KernelStartOptions,
): Promise<RunningKernel> {
  const { python, transport, runtimeDir } = settings;
  checkInterpreter(python, cwd);
  if (settings.sweepRuntimeDir) await sweepDeadOwnersOnce(runtimeDir);
  const dir = await makeOwnedDir(runtimeDir, 'mcpbox-kernel-');
  const info = newConnectionInfo(transport, transport === 'tcp' ? '127.0.0.1' : join(dir, 'k'));
  const connectionFile = join(dir, 'connection.json');
  await writeConnectionFile(connectionFile, info);
  let argv: string[];
  try {
    argv = await settings.wrap([
      python,
      BOOTSTRAP,
      '-f',
      connectionFile,
      // No history database: faster cells, and code (which may hold secrets) is not kept.
      '--HistoryManager.enabled=False',
      '--InteractiveShell.colors=NoColor',
      ...settings.kernelArgs,
    ]);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const kernel = spawnKernel(settings, argv, dir, env, cwd);
  let ports: Record<string, number>;
  try {
    ports = await readPorts(kernel.child, kernel.exit, signal, kernel.stderrTail, python);
  } catch (error) {
    await kernel.cleanup();
    throw error;
  }
  const connected: ConnectionInfo = {
    ...info,
    shell_port: ports.shell,
    iopub_port: ports.iopub,
    stdin_port: ports.stdin,
    control_port: ports.control,
    hb_port: ports.hb,
  };
  return connectKernel(settings, kernel, connected);
}

/** Spawns the kernel as the leader of its own process group, tracked for the exit hook. */
function spawnKernel(
  settings: LaunchSettings,
  argv: string[],
  dir: string,
  env: Record<string, string>,
  cwd: string | undefined,
): SpawnedKernel {
  const [command, ...args] = argv;
  const child = spawn(command, args, {
    cwd,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...env,
      IPYTHONDIR: join(dir, 'ipython'),
      JPY_PARENT_PID: String(process.pid),
      MCPBOX_PARENT_PID: String(process.pid),
      // debugpy warns on stderr about frozen modules at every start.
      PYDEVD_DISABLE_FILE_VALIDATION: '1',
    },
  });
  const tracked = { pid: child.pid ?? -1, dir };
  if (child.pid !== undefined) {
    installExitHook();
    liveKernels.add(tracked);
  }
  const exit = new Promise<KernelExit>((resolve) => {
    child.once('exit', (code, sig) =>
      resolve({ reason: describeExit(code, sig, settings.throughWrapper) }),
    );
    child.once('error', (error) => resolve({ reason: error.message }));
  });
  let stderrTail = '';
  child.stderr!.setEncoding('utf8').on('data', (text: string) => {
    stderrTail = (stderrTail + text).slice(-STDERR_TAIL);
    settings.onLog?.(text);
  });
  return {
    child,
    exit,
    stderrTail: () => stderrTail,
    async cleanup() {
      killGroup(child.pid, 'SIGKILL');
      await exit;
      liveKernels.delete(tracked);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Connects the channels and the heartbeat of a kernel that reported its ports. */
function connectKernel(
  settings: LaunchSettings,
  { child, exit, cleanup }: SpawnedKernel,
  connected: ConnectionInfo,
): RunningKernel {
  const { onLog, heartbeatTimeout } = settings;
  const channels = new ZmqChannels(connected, {
    onInvalidMessage: (channel, error) => onLog?.(`[mcpbox] ${channel}: ${error.message}\n`),
  });
  let heartbeatLost: (exit: KernelExit) => void = () => {};
  const exited = Promise.race([
    exit,
    new Promise<KernelExit>((resolve) => {
      heartbeatLost = resolve;
    }),
  ]);
  const heartbeat = new Heartbeat(channelAddress(connected, 'hb'), {
    interval: settings.heartbeatInterval,
    timeout: heartbeatTimeout,
    onDead: () => {
      heartbeatLost({ reason: `no heartbeat for ${heartbeatTimeout} ms` });
      killGroup(child.pid, 'SIGKILL');
    },
  });
  let stopping: Promise<void> | undefined;
  // Once gone, close what is left; the files are removed by stop(), which the owner calls.
  void exited.then(() => {
    heartbeat.stop();
    channels.close();
  });

  return {
    channels,
    pid: child.pid,
    exited,
    async interrupt() {
      // Like ipykernel's own interrupt_request: the whole group, so subprocesses stop too.
      killGroup(child.pid, 'SIGINT');
    },
    stop() {
      stopping ??= (async () => {
        heartbeat.stop();
        channels.close();
        killGroup(child.pid, 'SIGTERM');
        const timer = setTimeout(() => killGroup(child.pid, 'SIGKILL'), 2000);
        await exit;
        clearTimeout(timer);
        // Anything in the group that ignored SIGTERM.
        await cleanup();
      })();
      return stopping;
    },
  };
}

/** Waits for the bootstrap's line with the bound ports, or for the reason there will be none. */
function readPorts(
  child: ChildProcess,
  exit: Promise<KernelExit>,
  signal: AbortSignal,
  stderrTail: () => string,
  python: string,
): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const onData = (text: string) => {
      buffered += text;
      const start = buffered.indexOf(READY_PREFIX);
      const end = start < 0 ? -1 : buffered.indexOf('\n', start);
      if (end < 0) return;
      child.stdout!.off('data', onData);
      // Keep draining: a full pipe would block the kernel.
      child.stdout!.resume();
      try {
        resolve(JSON.parse(buffered.slice(start + READY_PREFIX.length, end)));
      } catch {
        reject(
          new KernelError('KERNEL_START_FAILED', 'kernel bootstrap reported unreadable ports'),
        );
      }
    };
    child.stdout!.setEncoding('utf8').on('data', onData);
    const onAbort = () =>
      reject(new KernelError('KERNEL_START_TIMEOUT', 'the kernel did not start in time'));
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    void exit.then(({ reason }) => {
      // A small delay lets the last of stderr arrive before it is quoted.
      setTimeout(() => reject(startFailure(reason, stderrTail(), python)), 20);
    });
  });
}

function startFailure(reason: string, stderr: string, python: string): KernelError {
  if (/No module named '?ipykernel/.test(stderr)) {
    return new KernelError(
      'KERNEL_NOT_FOUND',
      `ipykernel is not installed for ${python}: ${INSTALL_HINT}, or pass the interpreter that has it`,
    );
  }
  if (/ENOENT/.test(reason)) {
    return new KernelError(
      'KERNEL_NOT_FOUND',
      `Python interpreter ${python} not found: ${INSTALL_HINT}`,
    );
  }
  const tail = stderr.trim().split('\n').slice(-15).join('\n');
  return new KernelError(
    'KERNEL_START_FAILED',
    `the kernel process ${reason} during start-up${tail ? `:\n${tail}` : ''}`,
  );
}
