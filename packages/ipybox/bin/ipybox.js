#!/usr/bin/env node
// Runs the compiled JavaScript in dist/. In a checkout (the TypeScript sources next to this
// file, which the published package does not ship) runs the sources through tsx instead, so
// edits apply without a build; MCPBOX_BIN=dist runs dist/ there too.
import { existsSync } from 'node:fs';

const source = new URL('../src/cli/ipybox.ts', import.meta.url);
if (process.env.MCPBOX_BIN !== 'dist' && existsSync(source)) {
  await import(new URL('../../../scripts/source-mode.mjs', import.meta.url).href);
  await import(source.href);
} else {
  await import('../dist/cli/ipybox.js');
}
