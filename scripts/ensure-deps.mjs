#!/usr/bin/env node
// Makes a fresh clone runnable with one command: installs the npm packages when they are
// missing or older than package-lock.json, and checks the Debian packages the tests need
// (installing the missing ones with apt-get when running as root, as CI does).
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDebianPackages } from './debianPackages.mjs';

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

// The Debian packages the kernel, Jupyter Server and sandbox tests use (scripts/debianPackages.mjs):
// installed when running as root, else the exact apt-get line to run is printed.
if (process.argv.includes('--python')) {
  const result = ensureDebianPackages();
  if (!result.ok) {
    console.error(result.message);
    process.exit(1);
  }
}
