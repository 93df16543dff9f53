/**
 * Whether a Python interpreter runs and has ipykernel: the child process `checkPython` judges.
 * Its own module, importing nothing but Node's, so the `ipybox` command can start it before it
 * loads the server (see `kernels/startupWork.ts`).
 *
 * @module
 */
import { execFile } from 'node:child_process';
import { isAbsolute, resolve } from 'node:path';

/** Debian's interpreter, the one `python3-ipykernel` installs into. */
export const DEFAULT_PYTHON = '/usr/bin/python3';

/** What the probe printed (`ipykernel`, `no-ipykernel`, or else), and why it failed if it did. */
export interface PythonProbeOutcome {
  stdout: string;
  failure: string;
}

const PROBE =
  "import importlib.util as u; print('ipykernel' if u.find_spec('ipykernel') else 'no-ipykernel')";

/** The interpreter a `python` setting names: a relative path is taken from `cwd`, a bare name from PATH. */
export function interpreterPath(python: string = DEFAULT_PYTHON, cwd = process.cwd()): string {
  return python.includes('/') && !isAbsolute(python) ? resolve(cwd, python) : python;
}

/** Runs `python` to find ipykernel. Never rejects: a failure to run is in the outcome. */
export function probePython(python: string): Promise<PythonProbeOutcome> {
  return new Promise((resolve) => {
    execFile(python, ['-c', PROBE], { timeout: 60_000 }, (error, stdout, stderr) => {
      const said = String(stderr).trim().split('\n').at(-1);
      const failure = !error
        ? 'it printed nothing'
        : 'code' in error && error.code === 'ENOENT'
          ? 'not found'
          : said || error.message;
      resolve({ stdout: String(stdout).trim(), failure });
    });
  });
}
