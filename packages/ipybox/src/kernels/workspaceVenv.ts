/**
 * The workspace's virtual environment, `<workspace>/.venv`: where `install_package` installs, so
 * Debian's Python is never modified. It is created on first use with `--system-site-packages`, so
 * the kernel run from it still finds Debian's ipykernel, matplotlib and friends.
 *
 * @module
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** pip's output is returned to the client; keep a runaway log from filling memory. */
const MAX_OUTPUT_BYTES = 8 * 1024 * 1024;

/** pip's words for "no network" (DNS failure, unreachable, refused). */
const NO_NETWORK =
  /NewConnectionError|Name or service not known|Temporary failure in name resolution|Network is unreachable|Connection refused/;

export class PackageInstallError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PackageInstallError';
  }
}

export interface InstallOutcome {
  /** pip's stdout and stderr. */
  output: string;
  /** True when this install created the venv. */
  createdVenv: boolean;
}

export interface InstallOptions {
  /**
   * Receives pip's output line by line while it runs (and a line when the venv is being
   * created), so a caller can show progress instead of nothing for the minutes pip may take.
   */
  onOutput?: (line: string) => void;
}

export class WorkspaceVenv {
  readonly dir: string;
  readonly python: string;
  readonly #workspace: string;
  readonly #basePython: string;
  /** Installs run one at a time: pip does not lock its environment. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(workspace: string, basePython: string) {
    this.#workspace = workspace;
    this.#basePython = basePython;
    this.dir = join(workspace, '.venv');
    this.python = join(this.dir, 'bin', 'python');
  }

  get exists(): boolean {
    return existsSync(this.python);
  }

  /** `pip install <spec>` into the venv, creating it first if needed. */
  install(spec: string, options: InstallOptions = {}): Promise<InstallOutcome> {
    const task = this.#queue.then(() => this.#install(spec, options));
    this.#queue = task.catch(() => undefined);
    return task;
  }

  /** The venv's `site-packages`, as its interpreter reports it. */
  async sitePackages(): Promise<string> {
    const { stdout } = await run(this.python, [
      '-c',
      "import sysconfig; print(sysconfig.get_paths()['purelib'])",
    ]);
    return stdout.trim();
  }

  async #install(spec: string, { onOutput }: InstallOptions): Promise<InstallOutcome> {
    checkSpec(spec);
    let createdVenv = false;
    if (!this.exists) {
      onOutput?.(`Creating the workspace virtual environment ${this.dir}`);
      try {
        await run(this.#basePython, ['-m', 'venv', '--system-site-packages', this.dir], {
          maxBuffer: MAX_OUTPUT_BYTES,
        });
      } catch (error) {
        throw new PackageInstallError(
          `could not create the workspace virtual environment ${this.dir} with ${this.#basePython}: ${processOutput(error)}`,
        );
      }
      createdVenv = true;
    }
    const args = ['-m', 'pip', 'install', '--no-input', '--disable-pip-version-check'];
    // A local project builds with the venv's setuptools (from Debian): an isolated build would
    // fetch setuptools from PyPI, which fails without network.
    if (existsSync(resolve(this.#workspace, spec))) args.push('--no-build-isolation');
    args.push(spec);
    const pip = await runStreaming(this.python, args, {
      cwd: this.#workspace,
      // Unbuffered, or pip's lines would arrive all at once when it exits.
      env: { ...process.env, PIP_NO_INPUT: '1', PYTHONUNBUFFERED: '1' },
      onLine: onOutput,
    });
    if (pip.ok) return { output: pip.output, createdVenv };
    const output = pip.output || pip.failure;
    const offline = NO_NETWORK.test(output)
      ? '\n\npip could not reach the package index: this machine seems to have no network access. Install from a local directory, wheel or sdist path instead.'
      : '';
    throw new PackageInstallError(`pip install ${spec} failed:\n${output}${offline}`);
  }
}

/**
 * Runs a program, handing each line of its stdout and stderr (in the order they arrive) to
 * `onLine` as it comes, and returns the whole output (its last `MAX_OUTPUT_BYTES` at most).
 */
function runStreaming(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; onLine?: (line: string) => void },
): Promise<{ ok: boolean; output: string; failure: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const follow = (stream: NodeJS.ReadableStream) => {
      let partial = '';
      stream.setEncoding('utf8');
      stream.on('data', (text: string) => {
        output = (output + text).slice(-MAX_OUTPUT_BYTES);
        const lines = (partial + text).split(/\r?\n|\r/);
        partial = lines.pop() ?? '';
        for (const line of lines) if (line.trim() !== '') options.onLine?.(line);
      });
      stream.on('end', () => {
        if (partial.trim() !== '') options.onLine?.(partial);
      });
    };
    follow(child.stdout);
    follow(child.stderr);
    child.once('error', (error) => resolve({ ok: false, output, failure: error.message }));
    child.once('close', (code, signal) =>
      resolve({
        ok: code === 0,
        output: output.trim(),
        failure: signal ? `pip was killed by ${signal}` : `pip exited with code ${code}`,
      }),
    );
  });
}

/** Refuses what pip would read as an option (`--index-url …`, `-r file`) or nothing at all. */
function checkSpec(spec: string): void {
  if (spec.trim() === '') throw new PackageInstallError('package_name must not be empty');
  if (spec.startsWith('-')) {
    throw new PackageInstallError(
      `package_name must be a requirement (name, version specifier, URL or path), not a pip option: ${spec}`,
    );
  }
  if (/[\r\n\0]/.test(spec)) {
    throw new PackageInstallError('package_name must be a single line');
  }
}

function processOutput(error: unknown): string {
  const e = error as { stdout?: string; stderr?: string; message?: string };
  const text = `${e.stdout ?? ''}${e.stderr ?? ''}`.trim();
  return text === '' ? String(e.message ?? error) : text;
}
