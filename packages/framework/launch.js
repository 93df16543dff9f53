// What the bins of the mcpbox packages run (`@mcpbox/framework/launch`): Node's compile cache
// first, then the package's command-line module — the compiled JavaScript in dist/, what users
// run, also in a checkout; there MCPBOX_BIN=source runs the TypeScript sources through tsx
// instead (see binMode). Imports nothing but Node's modules: everything it loads, it loads before
// the cache is on.
import { existsSync } from 'node:fs';
import module from 'node:module';
import { homedir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

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
 * Which code the bins run, from MCPBOX_BIN: `dist` (the default) runs the compiled bundles, as
 * an installed package does, and starts fast (the sources through tsx took ~1.5-1.9 s to a stdio
 * server's first answer, past some clients' 1 s probe); `source` runs a checkout's TypeScript
 * sources through tsx, for a developer who wants an edit to apply without a build. The test
 * runner asks for `source`, so tests never run a stale dist/. Asked for, never guessed: a
 * checkout serves and prints what users get.
 */
export function binMode(env = process.env) {
  const mode = env.MCPBOX_BIN || 'dist';
  if (mode === 'dist' || mode === 'source') return mode;
  throw new Error(
    `MCPBOX_BIN must be 'dist' (the compiled code, the default) or 'source' (a checkout's TypeScript sources), not ${JSON.stringify(mode)}`,
  );
}

/**
 * The module to import for `name` of the package at `packageUrl`, and whether it is TypeScript
 * (then tsx comes first); throws what to do instead when there is none.
 */
function entryOf(packageUrl, name) {
  const mode = binMode();
  const source = new URL(`src/cli/${name}.ts`, packageUrl);
  const checkout = existsSync(source);
  if (mode === 'source') {
    if (checkout) return { url: source, typescript: true };
    throw new Error(
      `MCPBOX_BIN=source runs the TypeScript sources of a checkout; this installation has none (${fileURLToPath(source)}): unset MCPBOX_BIN`,
    );
  }
  const bundle = new URL(`dist/bundle/${name}.js`, packageUrl);
  if (existsSync(bundle)) return { url: bundle, typescript: false };
  const dist = fileURLToPath(new URL('dist', packageUrl));
  if (!checkout) throw new Error(`${dist} is missing: reinstall the package`);
  const root = fileURLToPath(new URL('../..', packageUrl));
  throw new Error(
    `${dist} is not built: run \`npm run build\` in ${root} (\`npm start\` builds it too), or set MCPBOX_BIN=source to run the TypeScript sources through tsx`,
  );
}

/**
 * Runs the command-line module `name` of the package at `packageUrl`: dist/bundle/NAME.js, or
 * with MCPBOX_BIN=source its src/cli/NAME.ts. A start that cannot be made says why and exits 1.
 */
export async function launch(packageUrl, name) {
  enableCompileCache();
  let entry;
  try {
    entry = entryOf(packageUrl, name);
  } catch (error) {
    console.error(`${basename(process.argv[1] ?? name, '.js')}: ${error.message}`);
    process.exitCode = 1;
    return;
  }
  if (entry.typescript) await import(new URL('../../scripts/source-mode.mjs', packageUrl).href);
  await import(entry.url.href);
}
