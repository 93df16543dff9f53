/**
 * The work ipybox does before it answers, begun by the `ipybox` command before it loads the
 * server's modules, so it overlaps their loading instead of following it: the Python probe (a
 * child process, tens of milliseconds of Python start-up spent waiting) and the sweep of what
 * dead ipybox processes left in the temp directory (file system calls). The plugin takes each
 * begun piece once (`openIpybox`); without the command (mcp-factory, a reload), or for another
 * interpreter than the one begun, it does the work itself, as before.
 *
 * Imports nothing but Node's and these small modules, so `--help` still loads no server.
 *
 * @module
 */

import { interpreterPath, type PythonProbeOutcome, probePython } from '../kernel/pythonProbe.ts';
import { sweepDeadOwners } from '../ownedDirs.ts';
import { sweepStaleSandboxSockets } from '../sandbox/staleSockets.ts';

const begun = new Map<string, Promise<unknown>>();

function begin(key: string, work: () => Promise<unknown>): void {
  if (begun.has(key)) return;
  const pending = work();
  // Nobody may take it (the server fails first): its failure must not be an unhandled rejection.
  pending.catch(() => {});
  begun.set(key, pending);
}

/** The begun work of `key` (once), or `work()` when none was begun. */
function take<T>(key: string, work: () => Promise<T>): Promise<T> {
  const pending = begun.get(key) as Promise<T> | undefined;
  begun.delete(key);
  return pending ?? work();
}

const probeKey = (python: string) => `python ${python}`;

/**
 * Begins the probe of the interpreter the `--python` flag names (resolved as the settings
 * resolve it) and the sweep.
 */
export function beginStartupWork(python: string | undefined): void {
  const interpreter = interpreterPath(python);
  begin(probeKey(interpreter), () => probePython(interpreter));
  begin('sweep', sweepLeftoversNow);
}

/** For `checkPython`: the probe of `python` begun early, or a new one. */
export function pythonProbe(python: string): Promise<PythonProbeOutcome> {
  return take(probeKey(python), () => probePython(python));
}

/**
 * Removes the kernel, sandbox and socket directories and the sandbox's sockets of dead ipybox
 * processes (see `ownedDirs.ts`); the sweep begun early, or a new one. Returns their paths.
 */
export function sweepLeftovers(): Promise<string[]> {
  return take('sweep', sweepLeftoversNow);
}

async function sweepLeftoversNow(): Promise<string[]> {
  const [dirs, sockets] = await Promise.all([sweepDeadOwners(), sweepStaleSandboxSockets()]);
  return [...dirs, ...sockets];
}
