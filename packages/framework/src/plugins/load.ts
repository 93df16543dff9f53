/**
 * Finds and imports plugin modules: a `.ts`/`.js` file or folder in a plugin directory, or an
 * installed npm package. TypeScript runs without a build step (tsx is registered in the process
 * when the first `.ts` plugin is imported, see typescript.ts).
 * A fresh import (for reloads) re-reads the plugin's entry file and every file it imports from
 * its own folder, so code changes are picked up. A plugin outside the host's tree resolves
 * `zod`, `@mcpbox/*` and `@modelcontextprotocol/*` to the host's copies (hostPackages.ts).
 *
 * @module
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { PluginModule } from '../contract/plugin.ts';
import { errorMessage, McpboxError } from '../errors.ts';
import { yaml } from '../lazy.ts';
import { needsHostPackages, shareHostPackages } from './hostPackages.ts';
import { enableTypeScript, isTypeScriptFile } from './typescript.ts';

/** Where a plugin's code came from; kept for reloads and file watching. */
export type PluginSource =
  | {
      kind: 'file';
      /** The entry file. */
      path: string;
      /** The folder whose files belong to the plugin: the plugin folder, or the entry's directory. */
      root: string;
      /** What to watch for changes: the plugin folder, or the single entry file. */
      watch: string;
    }
  | { kind: 'package'; specifier: string; url: string }
  | { kind: 'module' };

/** The entry file of a plugin folder, in order of preference. */
const INDEX_FILES = ['index.ts', 'index.js', 'index.mjs'];

const ENTRY_CANDIDATES = (dir: string, name: string) => [
  join(dir, `${name}.ts`),
  join(dir, `${name}.js`),
  join(dir, `${name}.mjs`),
  ...INDEX_FILES.map((file) => join(dir, name, file)),
];

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Names that are paths (`/abs/x.ts`, `./x`, `../plugins/x`) rather than names or packages. */
export function isPluginPath(name: string): boolean {
  return name.startsWith('.') || name.startsWith('/');
}

/**
 * The name a plugin given by its path goes by: a folder's name (for the folder or its index
 * file), else the file's name without its extension — `/abs/plugins/demo_full` and
 * `/abs/plugins/demo_full/index.ts` are `demo_full`, `/abs/x/weather.ts` is `weather`.
 */
export function pluginNameOfPath(path: string): string {
  const full = resolve(path);
  const file = basename(full);
  if (INDEX_FILES.includes(file)) return basename(dirname(full));
  return file.replace(/\.(ts|js|mjs)$/, '');
}

/**
 * Resolves a plugin name: `name.ts`, `name.js`, `name.mjs`, `name/index.{ts,js,mjs}` in each
 * directory in order, then an installed npm package (`pkg`, `@scope/pkg`). A name starting with
 * `/` or `.` is a path: to the entry file, or to a plugin folder holding an index file.
 *
 * @throws McpboxError `PLUGIN_NOT_FOUND`, naming every place it looked.
 */
export function resolvePlugin(name: string, dirs: readonly string[]): PluginSource {
  if (isPluginPath(name)) {
    const path = resolve(name);
    if (isFile(path)) return fileSource(path, INDEX_FILES.includes(basename(path)));
    const index = INDEX_FILES.map((file) => join(path, file)).find(isFile);
    if (index) return fileSource(index, true);
    throw new McpboxError(
      'PLUGIN_NOT_FOUND',
      `Plugin '${name}' not found (looked in: ${path}, ${join(path, 'index.{ts,js,mjs}')})`,
    );
  }
  for (const dir of dirs) {
    for (const candidate of ENTRY_CANDIDATES(dir, name)) {
      if (isFile(candidate))
        return fileSource(resolve(candidate), candidate.includes(`${name}/index.`));
    }
  }
  const pkg = resolvePackage(name);
  if (pkg) return pkg;
  const places = [...dirs.map((d) => resolve(d)), `npm package ${name}`].join(', ');
  throw new McpboxError('PLUGIN_NOT_FOUND', `Plugin '${name}' not found (looked in: ${places})`);
}

function fileSource(path: string, isFolder: boolean): PluginSource {
  const root = dirname(path);
  return { kind: 'file', path, root, watch: isFolder ? root : path };
}

function resolvePackage(specifier: string): PluginSource | undefined {
  // Only valid package specifiers; never Node built-ins.
  if (!/^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(\/[\w.-]+)*$/i.test(specifier)) return undefined;
  try {
    const url = import.meta.resolve(specifier);
    if (!url.startsWith('file:')) return undefined;
    return { kind: 'package', specifier, url };
  } catch {
    return undefined;
  }
}

let freshHookRegistered = false;
let generation = 0;

/** Imports a plugin's module; `fresh` bypasses Node's module cache for the plugin's own files. */
export async function importPluginSource(
  source: PluginSource,
  options: { fresh?: boolean } = {},
): Promise<unknown> {
  if (source.kind === 'module') {
    throw new McpboxError('PLUGIN_INVALID', 'a plugin given as a module has no source to import');
  }
  const file = source.kind === 'package' ? fileURLToPath(source.url) : source.path;
  if (needsHostPackages(file)) shareHostPackages();
  if (isTypeScriptFile(file)) {
    await enableTypeScript();
  }
  if (source.kind === 'package') {
    return import(source.url).catch((error: unknown) => {
      throw explainMissingPackage(error, dirname(fileURLToPath(source.url)));
    });
  }
  const url = pathToFileURL(source.path);
  if (options.fresh) {
    if (!freshHookRegistered) {
      register(new URL('./fresh-import-hook.mjs', import.meta.url));
      freshHookRegistered = true;
    }
    generation += 1;
    url.searchParams.set('mcpbox-fresh', `${generation}@${pathToFileURL(source.root).href}/`);
    forgetCommonJs(source.root);
  }
  return import(url.href).catch((error: unknown) => {
    throw explainMissingPackage(error, source.root);
  });
}

/**
 * A package the plugin imports but nobody installed, named with what to do (Node's own message
 * names only the specifier, and for CommonJS adds a require stack); other errors pass as they are.
 */
function explainMissingPackage(error: unknown, root: string): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return error;
  const specifier = /Cannot find (?:package|module) '([^']+)'/.exec(errorMessage(error))?.[1];
  if (!specifier || /^(\.|\/|file:|node:)/.test(specifier)) return error;
  const parts = specifier.split('/');
  const pkg = parts.slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
  return new Error(
    `it imports '${pkg}', which is not installed where the plugin can find it: ` +
      `run \`npm install ${pkg}\` in ${root} (or in a folder above it)`,
    { cause: error },
  );
}

/**
 * A `.ts` file outside any `"type": "module"` package is run as CommonJS, through `require`,
 * whose cache is keyed by path and ignores the URL tag above: drop the plugin's files from it.
 */
function forgetCommonJs(root: string): void {
  const cache = createRequire(import.meta.url).cache;
  const prefix = root.endsWith(sep) ? root : root + sep;
  for (const key of Object.keys(cache)) {
    if (key.startsWith(prefix) && !key.includes(`${sep}node_modules${sep}`)) delete cache[key];
  }
}

/**
 * The plugin contract out of whatever a module exported: `register` at the top level or on the
 * default export, or a default export that is itself the function.
 */
export function pluginModuleOf(imported: unknown): PluginModule | undefined {
  if (imported === null || (typeof imported !== 'object' && typeof imported !== 'function')) {
    return undefined;
  }
  const mod = imported as { register?: unknown; default?: unknown; description?: unknown };
  if (typeof mod.register === 'function') return mod as PluginModule;
  const def = mod.default as { register?: unknown; description?: unknown } | undefined;
  if (def && typeof def === 'object' && typeof def.register === 'function') {
    return def as PluginModule;
  }
  if (typeof def === 'function') {
    const description = typeof mod.description === 'string' ? mod.description : undefined;
    return { register: def as PluginModule['register'], description };
  }
  return undefined;
}

export interface AvailablePlugin {
  name: string;
  description: string;
  /** The directory it was found in. */
  dir: string;
}

/** `description:` from `{dir}/{name}/config.yaml`, if the file exists and has one. */
export function folderDescription(dir: string, name: string): string | undefined {
  const file = join(dir, name, 'config.yaml');
  if (!existsSync(file)) return undefined;
  try {
    const parsed = yaml().parse(readFileSync(file, 'utf8')) as { description?: unknown } | null;
    return typeof parsed?.description === 'string' ? parsed.description : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Every plugin the directories offer (first directory wins on duplicate names), with its
 * description from `config.yaml` or, failing that, the module's exported `description`
 * (which means importing it).
 */
export async function listAvailablePlugins(dirs: readonly string[]): Promise<AvailablePlugin[]> {
  const found = new Map<string, AvailablePlugin>();
  for (const dir of dirs) {
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const name = pluginNameOf(dir, entry);
      if (!name || found.has(name)) continue;
      let description = entry.isDirectory() ? folderDescription(dir, name) : undefined;
      if (description === undefined) {
        try {
          const source = resolvePlugin(name, [dir]);
          description = pluginModuleOf(await importPluginSource(source))?.description;
        } catch {
          description = undefined;
        }
      }
      found.set(name, { name, description: description ?? '', dir: resolve(dir) });
    }
  }
  return [...found.values()].sort((a, b) => a.name.localeCompare(b.name));
}

function pluginNameOf(dir: string, entry: import('node:fs').Dirent): string | undefined {
  if (entry.name.startsWith('_') || entry.name.startsWith('.')) return undefined;
  if (entry.isDirectory()) {
    const hasIndex = INDEX_FILES.some((f) => isFile(join(dir, entry.name, f)));
    return hasIndex ? entry.name : undefined;
  }
  const match = /^(.+)\.(ts|js|mjs)$/.exec(entry.name);
  if (!match || /\.(test|d)$/.test(match[1])) return undefined;
  return match[1];
}
