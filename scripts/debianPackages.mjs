// The Debian packages the tests and kernels need, how to tell each is there, and how
// `npm test`/`npm start` get them: installed with apt-get when running as root (as CI does),
// else the exact command to run is printed. Only what is missing is installed, so a machine
// that has everything runs no apt-get at all.
import { execFileSync, spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The interpreter kernels run on (ipybox's default `python`), so the one probed here. */
export const SYSTEM_PYTHON = '/usr/bin/python3';

/**
 * Each package with what proves it is installed: a Python module importable by the system
 * Python, or a command on PATH. IPython, jedi and debugpy (imported by the kernel tests) come
 * with python3-ipykernel; `script` (the pty tests) with bsdutils, which Debian always has.
 */
export const DEBIAN_PACKAGES = [
  { name: 'python3-ipykernel', module: 'ipykernel' },
  { name: 'python3-matplotlib', module: 'matplotlib' },
  { name: 'python3-pil', module: 'PIL' },
  { name: 'python3-numpy', module: 'numpy' },
  { name: 'python3-pandas', module: 'pandas' },
  { name: 'python3-jupyter-server', module: 'jupyter_server' },
  // venv itself is in python3.11; Debian splits off the ensurepip it needs to make a venv.
  { name: 'python3-venv', module: 'ensurepip' },
  { name: 'python3-pip', module: 'pip' },
  // The package-install test builds a local project with setuptools.
  { name: 'python3-setuptools', module: 'setuptools' },
  { name: 'bubblewrap', command: 'bwrap' },
  { name: 'socat', command: 'socat' },
  { name: 'ripgrep', command: 'rg' },
  // The console and MCP App viewer tests drive a real headless browser.
  { name: 'chromium', command: 'chromium' },
  // Cluster mode's shared state and its load balancer, run for real by the cluster tests.
  { name: 'redis-server', command: 'redis-server' },
  { name: 'haproxy', command: 'haproxy' },
];

/** The executable `command` on `path` (a PATH string), or undefined. */
export function findOnPath(command, path = process.env.PATH ?? '') {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/**
 * The modules `python` cannot import; all of them when it does not run at all. A directory
 * without its package's files (what `apt-get remove` leaves when a cache or data directory is in
 * it) imports as an empty namespace package, so only a module with an origin counts as there.
 */
export function missingModules(python, modules) {
  const probe = spawnSync(
    python,
    [
      '-c',
      'import importlib.util, json, sys\n' +
        'def absent(m):\n' +
        '    spec = importlib.util.find_spec(m)\n' +
        "    return spec is None or spec.origin in (None, 'namespace')\n" +
        'print(json.dumps([m for m in sys.argv[1:] if absent(m)]))',
      ...modules,
    ],
    { encoding: 'utf8' },
  );
  if (probe.status !== 0) return modules;
  try {
    return JSON.parse(probe.stdout);
  } catch {
    return modules;
  }
}

/** The names of the packages in DEBIAN_PACKAGES that are not installed. */
export function missingPackages({ python = SYSTEM_PYTHON, path = process.env.PATH ?? '' } = {}) {
  const modules = DEBIAN_PACKAGES.filter((p) => p.module).map((p) => p.module);
  const absent = new Set(missingModules(python, modules));
  return DEBIAN_PACKAGES.filter((p) =>
    p.module ? absent.has(p.module) : findOnPath(p.command, path) === undefined,
  ).map((p) => p.name);
}

/** The command a person runs to install `packages`. */
export function installLine(packages) {
  return `sudo apt-get update && sudo apt-get install -y --no-install-recommends ${packages.join(' ')}`;
}

/**
 * Installs what is missing when it can (root, apt-get on PATH), then checks again.
 * @returns `{ ok: true, installed }` or `{ ok: false, message }` saying what to do
 */
export function ensureDebianPackages({
  python = SYSTEM_PYTHON,
  path = process.env.PATH ?? '',
  isRoot = process.getuid?.() === 0,
  log = (line) => console.error(line),
} = {}) {
  const missing = missingPackages({ python, path });
  if (missing.length === 0) return { ok: true, installed: [] };
  const aptGet = findOnPath('apt-get', path);
  if (!isRoot || !aptGet) {
    const how = aptGet
      ? `run:\n  ${installLine(missing)}`
      : `this is not a Debian/Ubuntu system (no apt-get): install the equivalents of ${missing.join(', ')}`;
    return {
      ok: false,
      message: `mcpbox: the kernels, Jupyter Server and sandbox tests need Debian packages that are missing; ${how}`,
    };
  }
  log(`mcpbox: installing Debian packages ${missing.join(' ')} …`);
  const env = { ...process.env, PATH: path, DEBIAN_FRONTEND: 'noninteractive' };
  const options = { stdio: ['ignore', 2, 2], env };
  execFileSync(aptGet, ['update', '-qq'], options);
  execFileSync(aptGet, ['install', '-y', '-qq', '--no-install-recommends', ...missing], options);
  const still = missingPackages({ python, path });
  if (still.length > 0) {
    return {
      ok: false,
      message: `mcpbox: apt-get installed ${missing.join(' ')}, yet ${still.join(', ')} still cannot be found (is ${python} Debian's Python, is PATH complete?)`,
    };
  }
  return { ok: true, installed: missing };
}
