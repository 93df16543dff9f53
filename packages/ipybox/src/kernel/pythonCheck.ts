/**
 * Whether the configured Python can run kernels: checked by the plugin before it serves (a
 * wrong interpreter fails the start, saying the fix) and by the launcher before each kernel.
 * Its own module, apart from the launcher, so that start-up check does not load the kernel
 * launcher's modules (~16 KB: channels, wire protocol, heartbeat) before the first answer
 * (bench/startup.ts); they load with the first kernel.
 *
 * @module
 */
import { accessSync, constants, statSync } from 'node:fs';
import { KernelError } from './errors.ts';
import { DEFAULT_PYTHON, type PythonProbeOutcome, probePython } from './pythonProbe.ts';

export const INSTALL_HINT =
  "install Debian's python3-ipykernel (apt-get install python3-ipykernel)";

/** Fails early, with the Debian package named, when the interpreter cannot be run at all. */
export function checkInterpreter(
  python: string,
  cwd: string | undefined,
  other = 'or pass the interpreter that has ipykernel',
): void {
  if (python.includes('/')) {
    try {
      accessSync(python, constants.X_OK);
    } catch {
      throw new KernelError(
        'KERNEL_NOT_FOUND',
        `Python interpreter ${python} not found or not executable: ${INSTALL_HINT}, ${other}`,
      );
    }
  }
  if (cwd !== undefined && !statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) {
    throw new KernelError('KERNEL_START_FAILED', `kernel working directory ${cwd} does not exist`);
  }
}

/**
 * Checks, before any kernel is needed, that `python` runs and has ipykernel, so a wrong
 * interpreter is reported at start-up with the fix rather than at the first cell. Throws a
 * `KernelError` (`KERNEL_NOT_FOUND`) whose message says what to do; `setting` names the option
 * the user gave the interpreter with.
 */
export async function checkPython(
  python: string,
  setting = '--python',
  /** Runs the probe; the `ipybox` command passes one it started before its modules loaded. */
  probe: (python: string) => Promise<PythonProbeOutcome> = probePython,
): Promise<void> {
  const other = `pass ${setting} the path of a Python that has ipykernel`;
  checkInterpreter(python, undefined, `or ${other}`);
  const outcome = await probe(python);
  if (outcome.stdout === 'ipykernel') return;
  if (outcome.stdout === 'no-ipykernel') {
    const install = python === DEFAULT_PYTHON ? INSTALL_HINT : `${python} -m pip install ipykernel`;
    throw new KernelError(
      'KERNEL_NOT_FOUND',
      `ipykernel is not installed for ${python}: ${install}, or ${other}`,
    );
  }
  throw new KernelError(
    'KERNEL_NOT_FOUND',
    `${python} does not run as a Python interpreter (${outcome.failure}): ${other}, or ${INSTALL_HINT}`,
  );
}
