#!/usr/bin/env node
// `npm run build`: compiles each package's TypeScript to JavaScript and declarations in its
// dist/ (what the published package ships and its bins run), copies the files the code reads at
// run time by path (Python sources, loader hooks, shell helpers) next to the compiled modules,
// and compiles the demo plugins the README uses (echo, greet, demo_full, ipybox) into
// @mcpbox/proxy's dist/plugins, where an installed mcp-factory finds them.
// Usage: node scripts/build.mjs [package …]   (default: all, dependencies first)
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
/** In dependency order: ipybox's declarations are needed by proxy's ipybox plugin. */
const ORDER = ['framework', 'ipybox', 'proxy'];
/** Files read at run time by path, not imported: copied as they are. */
const ASSET = /\.(mjs|py|sh)$/;
const NOT_SHIPPED = /(\.test\.|\.contract\.|^testing\.ts$)/;

function compile(project) {
  const result = spawnSync(process.execPath, [tsc, '-p', project], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`build: tsc -p ${relative(root, project)} failed`);
    process.exit(result.status ?? 1);
  }
}

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === '__fixtures__' || entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else yield path;
  }
}

function copyAssets(src, dist) {
  for (const file of files(src)) {
    const name = file.slice(dirname(file).length + 1);
    if (!ASSET.test(name) || NOT_SHIPPED.test(name)) continue;
    const target = join(dist, relative(src, file));
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(file, target);
    chmodSync(target, statSync(file).mode);
  }
}

const wanted = process.argv.slice(2);
for (const name of wanted) {
  if (!ORDER.includes(name)) {
    console.error(`build: unknown package '${name}' (one of: ${ORDER.join(', ')})`);
    process.exit(2);
  }
}
for (const name of ORDER) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  const dir = join(root, 'packages', name);
  rmSync(join(dir, 'dist'), { recursive: true, force: true });
  compile(join(dir, 'tsconfig.build.json'));
  copyAssets(join(dir, 'src'), join(dir, 'dist'));
  if (name === 'proxy') compile(join(dir, 'tsconfig.plugins.json'));
  console.error(`build: packages/${name}/dist`);
}
