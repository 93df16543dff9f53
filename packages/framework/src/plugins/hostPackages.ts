/**
 * Plugins anywhere on disk get the host's copies of the packages a plugin is written against:
 * `zod`, `@mcpbox/*` and `@modelcontextprotocol/*`. Node resolves a bare specifier through the
 * `node_modules` folders above the importing file, so a plugin in `~/weather-plugin` found
 * none and failed with "Cannot find module 'zod'". Resolution from the plugin still comes first,
 * so a plugin that brings its own copy keeps it; only where that fails is the specifier resolved
 * from the host package instead.
 *
 * Both module systems need it: ES modules through a `module.register` resolve hook, and
 * CommonJS (a `.ts` plugin in a folder without `"type": "module"`, which tsx compiles to
 * `require` calls that such hooks do not see on Node 20) through `Module._resolveFilename`,
 * the one place every `require` resolves. A CommonJS plugin gets the host's files through
 * `require`, as any CommonJS consumer of a package does: its own module instances, not the
 * ES-module ones the host runs.
 *
 * @module
 */
import Module, { createRequire, register } from 'node:module';
import { resolve, sep } from 'node:path';

/** Bare specifiers the host shares with plugins: the package, or a subpath of it. */
const SHARED = /^(zod|@mcpbox\/[^/]+|@modelcontextprotocol\/[^/]+)(\/.*)?$/;

type ResolveFilename = (this: unknown, request: string, ...rest: unknown[]) => string;

let installed = false;

/**
 * The folder whose `node_modules` gives the host its shared packages (found through zod's
 * location); a plugin inside it resolves them as the host does.
 */
let hostRoot: string | undefined;

/**
 * Whether a plugin at `path` needs the fallbacks: only a plugin outside the host's tree does.
 * Installing them costs start-up time (Node runs module hooks on a thread of their own, which
 * every later import then goes through), so a server of built-in or in-tree plugins skips it.
 */
export function needsHostPackages(path: string): boolean {
  if (installed) return false;
  if (hostRoot === undefined) {
    const zod = createRequire(import.meta.url).resolve('zod');
    const cut = zod.lastIndexOf(`${sep}node_modules${sep}`);
    hostRoot = cut < 0 ? '' : zod.slice(0, cut + 1);
  }
  return hostRoot === '' || !resolve(path).startsWith(hostRoot);
}

/** Installs both fallbacks, once per process; the first plugin import calls it. */
export function shareHostPackages(): void {
  if (installed) return;
  installed = true;
  register(new URL('./host-packages-hook.mjs', import.meta.url), {
    data: { shared: SHARED.source },
  });
  const fromHost = createRequire(import.meta.url);
  const cjs = Module as unknown as { _resolveFilename: ResolveFilename };
  const resolveFromPlugin = cjs._resolveFilename;
  cjs._resolveFilename = function resolveSharedFromHost(request, ...rest) {
    try {
      return resolveFromPlugin.call(this, request, ...rest);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND' || !SHARED.test(request))
        throw error;
      try {
        return fromHost.resolve(request);
      } catch {
        throw error;
      }
    }
  };
}
