#!/usr/bin/env node
// Makes a fresh clone runnable with one command: installs the npm packages when they are
// missing or older than package-lock.json, and checks the Debian packages the kernel tests
// need (installing them with apt-get when running as root, as CI does).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const marker = join(root, 'node_modules', '.package-lock.json');
const lock = join(root, 'package-lock.json');

if (!existsSync(marker) || statSync(marker).mtimeMs < statSync(lock).mtimeMs) {
  console.error('mcpbox: installing npm packages (npm ci) …');
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: ['ignore', 2, 2] });
}

// --bench: the benchmark peers (fastmcp) live in bench/node_modules, apart from the workspace.
if (process.argv.includes('--bench')) {
  const benchMarker = join(root, 'bench', 'node_modules', '.package-lock.json');
  const benchLock = join(root, 'bench', 'package-lock.json');
  if (!existsSync(benchMarker) || statSync(benchMarker).mtimeMs < statSync(benchLock).mtimeMs) {
    console.error('mcpbox: installing benchmark peers (npm ci --prefix bench) …');
    execFileSync('npm', ['ci', '--prefix', 'bench', '--no-audit', '--no-fund'], {
      cwd: root,
      stdio: ['ignore', 2, 2],
    });
  }
}

// The Debian packages the kernel, Jupyter Server and sandbox tests use — the same list .ci/run
// installs, so `npm test` on a fresh machine needs nothing done by hand.
const DEBIAN_PACKAGES = [
  'python3-ipykernel',
  'python3-matplotlib',
  'python3-pandas',
  'python3-jupyter-server',
  'python3-venv',
  'python3-pip',
  'bubblewrap',
  'socat',
  'ripgrep',
];

function debianPackagesMissing() {
  const python = spawnSync(
    '/usr/bin/python3',
    ['-c', 'import ipykernel, matplotlib, pandas, jupyter_server, venv, ensurepip'],
    { stdio: 'ignore' },
  );
  if (python.status !== 0) return true;
  return ['bwrap', 'socat', 'rg'].some(
    (tool) => spawnSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' }).status !== 0,
  );
}

const wantPython = process.argv.includes('--python');
if (wantPython && debianPackagesMissing()) {
  if (process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
    console.error(`mcpbox: installing Debian packages ${DEBIAN_PACKAGES.join(' ')} …`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update', '-qq'], { stdio: ['ignore', 2, 2], env });
    execFileSync(
      'apt-get',
      ['install', '-y', '-qq', '--no-install-recommends', ...DEBIAN_PACKAGES],
      {
        stdio: ['ignore', 2, 2],
        env,
      },
    );
  } else {
    console.error(
      `mcpbox: kernels and the sandbox need Debian packages: sudo apt-get install ${DEBIAN_PACKAGES.join(' ')}`,
    );
    process.exit(1);
  }
}
