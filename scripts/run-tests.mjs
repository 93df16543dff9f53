#!/usr/bin/env node
// Runs every *.test.ts in the repository with Node's built-in test runner, TypeScript loaded by
// tsx. Node 20's runner does not glob .ts files itself, so the list is collected here.
// Usage: node scripts/run-tests.mjs [path-substring …]
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const skip = new Set(['node_modules', '.git', '.tmp']);

function* walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (skip.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else if (entry.name.endsWith('.test.ts')) yield relative(root, path);
  }
}

const filters = process.argv.slice(2);
const files = [...walk(root)]
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
// `@mcpbox/*` imports resolve to the TypeScript sources (the `mcpbox-source` export condition),
// in the test processes and in every node process they start (NODE_OPTIONS), so tests never run
// a stale dist/. The pack-and-install test clears it for the installed packages.
const sourceCondition = '--conditions=mcpbox-source';
const env = {
  ...process.env,
  NODE_OPTIONS: [process.env.NODE_OPTIONS, sourceCondition].filter(Boolean).join(' '),
};
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=300000', ...files],
  { cwd: root, stdio: 'inherit', env },
);
process.exit(result.status ?? 1);
