// What the bins of the mcpbox packages run (`@mcpbox/framework/launch`): Node's compile cache
// first, then the package's command-line module — the compiled JavaScript in dist/, or in a
// checkout (the TypeScript sources next to dist/, which the published packages do not ship) the
// sources through tsx, so edits apply without a build; MCPBOX_BIN=dist runs dist/ there too.
// Imports nothing but Node's modules: everything it loads, it loads before the cache is on.
import { existsSync } from 'node:fs';
import module from 'node:module';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * Where the compile cache lives unless NODE_COMPILE_CACHE says otherwise: the user's own cache
 * directory, not Node's default under the shared temp directory, where another local user could
 * have put code for us to run (a code cache is compiled code, loaded without being re-parsed).
 */
export function compileCacheDirectory(env = process.env) {
  const base = env.XDG_CACHE_HOME?.startsWith('/') ? env.XDG_CACHE_HOME : join(homedir(), '.cache');
  return join(base, 'mcpbox', 'node-compile-cache');
}

/**
 * Every directory a start of our bins may load compiled code from: ours, and NODE_COMPILE_CACHE's
 * when it is set. What writes there runs in the next start, so ipybox's sandboxes deny writing
 * to them even inside a workspace that holds them (a workspace of `~`).
 */
export function compileCacheDirectories(env = process.env) {
  const dirs = [];
  try {
    dirs.push(compileCacheDirectory(env));
  } catch {
    // homedir() without a home: ours is not used either (enableCompileCache)
  }
  if (env.NODE_COMPILE_CACHE) dirs.push(resolve(env.NODE_COMPILE_CACHE));
  return dirs;
}

/** How long after start-up the cache is written out, off the path of the first answers. */
const FLUSH_AFTER_MS = 2000;

/**
 * Turns on Node's on-disk compile cache (Node >= 22.1; on Node 20 the API is missing and this
 * does nothing): every start after the first loads V8's code for the SDK, zod and our bundles
 * instead of compiling their ~2.3 MB again, which is most of a stdio server's cold start that an
 * MCP client waits for on every launch (bench/startup.ts). NODE_COMPILE_CACHE=dir chooses
 * another directory and NODE_DISABLE_COMPILE_CACHE=1 turns it off, as for any Node program.
 * Never fails the start: a directory that cannot be used only leaves the cache off.
 * Node writes new entries when the process exits; they are also written shortly after start-up,
 * so a server that its client SIGKILLs still leaves them for the next start.
 */
export function enableCompileCache() {
  if (typeof module.enableCompileCache !== 'function') return undefined;
  let result;
  try {
    result = module.enableCompileCache(compileCacheDirectory());
  } catch {
    return undefined; // homedir() without a home: run uncached
  }
  if (result.directory !== undefined && typeof module.flushCompileCache === 'function') {
    setTimeout(() => module.flushCompileCache(), FLUSH_AFTER_MS).unref();
  }
  return result;
}

/**
 * Runs the command-line module `name` of the package at `packageUrl` (its src/cli/NAME.ts,
 * compiled and bundled to dist/bundle/NAME.js).
 */
export async function launch(packageUrl, name) {
  enableCompileCache();
  const source = new URL(`src/cli/${name}.ts`, packageUrl);
  if (process.env.MCPBOX_BIN !== 'dist' && existsSync(source)) {
    await import(new URL('../../scripts/source-mode.mjs', packageUrl).href);
    await import(source.href);
  } else {
    await import(new URL(`dist/bundle/${name}.js`, packageUrl).href);
  }
}
