/**
 * Test helper: runs a Python snippet in a real `/usr/bin/python3` (Debian's, the interpreter the
 * kernels use) and returns what it printed. Generated modules are tested through this, not by
 * reading their source.
 *
 * @module
 */
import { execFile } from 'node:child_process';

export const SYSTEM_PYTHON = '/usr/bin/python3';

export interface PythonRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `source` with `PYTHONPATH=root` (so `import mcptools…` works) and extra `env`. */
export function runPython(
  source: string,
  {
    root,
    env = {},
    timeoutMs = 60_000,
  }: { root: string; env?: Record<string, string>; timeoutMs?: number },
): Promise<PythonRun> {
  return new Promise((resolve) => {
    const child = execFile(
      SYSTEM_PYTHON,
      ['-I', '-c', `import sys; sys.path.insert(0, ${JSON.stringify(root)})\n${source}`],
      {
        cwd: root,
        env: { PATH: '/usr/bin:/bin', ...env },
        timeout: timeoutMs,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    child.stdin?.end();
  });
}

/** Runs `source`, expects exit 0, and parses the last line of stdout as JSON. */
export async function pythonJson<T = unknown>(
  source: string,
  options: { root: string; env?: Record<string, string>; timeoutMs?: number },
): Promise<T> {
  const run = await runPython(source, options);
  if (run.code !== 0) {
    throw new Error(
      `python exited ${run.code}\n--- stderr ---\n${run.stderr}\n--- stdout ---\n${run.stdout}`,
    );
  }
  const lines = run.stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]!) as T;
}
