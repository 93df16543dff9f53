// What the bins run: the compiled JavaScript in dist/. In a checkout (the TypeScript sources next
// to dist/, which the published package does not ship) the sources through tsx instead, so edits
// apply without a build; MCPBOX_BIN=dist runs dist/ there too.
import { existsSync } from 'node:fs';

/** Runs the command-line module `name` (src/cli/NAME.ts, compiled and bundled to dist/bundle/NAME.js). */
export async function launch(name) {
  const source = new URL(`../src/cli/${name}.ts`, import.meta.url);
  if (process.env.MCPBOX_BIN !== 'dist' && existsSync(source)) {
    await import(new URL('../../../scripts/source-mode.mjs', import.meta.url).href);
    await import(source.href);
  } else {
    await import(new URL(`../dist/bundle/${name}.js`, import.meta.url).href);
  }
}
