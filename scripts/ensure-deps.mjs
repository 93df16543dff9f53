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

const wantPython = process.argv.includes('--python');
if (wantPython) {
  const probe = spawnSync('/usr/bin/python3', ['-c', 'import ipykernel, matplotlib'], {
    stdio: 'ignore',
  });
  if (probe.status !== 0) {
    const packages = ['python3-ipykernel', 'python3-matplotlib', 'python3-venv'];
    if (process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
      console.error(`mcpbox: installing Debian packages ${packages.join(' ')} …`);
      execFileSync('apt-get', ['update', '-qq'], { stdio: ['ignore', 2, 2] });
      execFileSync('apt-get', ['install', '-y', '-qq', ...packages], {
        stdio: ['ignore', 2, 2],
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      });
    } else {
      console.error(
        `mcpbox: Python kernels need Debian packages: sudo apt-get install ${packages.join(' ')}`,
      );
      process.exit(1);
    }
  }
}
