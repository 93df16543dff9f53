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
// Tests run the TypeScript sources, never a stale dist/: `@mcpbox/*` imports resolve to them (the
// `mcpbox-source` export condition), in the test processes and in every node process they start
// (NODE_OPTIONS), and the bins the tests start run them (MCPBOX_BIN=source; the bins run dist/
// unless asked). A test that starts a bin with an environment of its own passes MCPBOX_BIN on;
// the pack-and-install and launcher tests clear both for the compiled code.
const sourceCondition = '--conditions=mcpbox-source';
const env = {
  ...process.env,
  NODE_OPTIONS: [process.env.NODE_OPTIONS, sourceCondition].filter(Boolean).join(' '),
  MCPBOX_BIN: 'source',
};
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=300000', ...files],
  { cwd: root, stdio: 'inherit', env },
);
process.exit(result.status ?? 1);
