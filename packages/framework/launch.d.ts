// Declarations of launch.js (`@mcpbox/framework/launch`), written by hand: the module is plain
// JavaScript that the bins import before anything is compiled or bundled.

/** What Node's `module.enableCompileCache()` returns (Node >= 22.1; not in Node 20's types). */
export interface EnableCompileCacheResult {
  status: number;
  message?: string;
  directory?: string;
}

/** Our compile cache directory: `$XDG_CACHE_HOME/mcpbox/node-compile-cache`, else under `~/.cache`. */
export function compileCacheDirectory(env?: NodeJS.ProcessEnv): string;
/** Every directory a start of the bins may load compiled code from (ours, NODE_COMPILE_CACHE). */
export function compileCacheDirectories(env?: NodeJS.ProcessEnv): string[];
/** Turns on Node's compile cache in our directory (Node >= 22.1); `undefined` where Node has none. */
export function enableCompileCache(): EnableCompileCacheResult | undefined;
/** Which code the bins run: MCPBOX_BIN `dist` (the default) or `source` (a checkout's sources); throws on anything else. */
export function binMode(env?: NodeJS.ProcessEnv): 'dist' | 'source';
/** Runs the command-line module `name` of the package at `packageUrl`. */
export function launch(packageUrl: URL, name: string): Promise<void>;
