/**
 * Loads the chosen plugins one by one into the registry. A plugin that fails (not found, throws
 * in `register`, collides) is reported and skipped; the others still load.
 *
 * @module
 */
import { isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Config, PluginRegistry } from '@mcpbox/framework';

export interface LoadOutcome {
  loaded: string[];
  failed: Array<{ plugin: string; error: string }>;
}

/** Imports a `plugins.<name>.path` (a file or an npm specifier) for the registry. */
async function importPath(
  name: string,
  path: string,
): Promise<{ module?: unknown; error?: string }> {
  try {
    return { module: await import(isAbsolute(path) ? pathToFileURL(path).href : path) };
  } catch (error) {
    return { error: `Plugin '${name}' failed to import from ${path}: ${(error as Error).message}` };
  }
}

export async function loadPlugins(
  registry: PluginRegistry,
  names: readonly string[],
  config: Config,
): Promise<LoadOutcome> {
  const outcome: LoadOutcome = { loaded: [], failed: [] };
  for (const name of names) {
    const entry = config.plugins[name] ?? {};
    let module: unknown;
    if (entry.path) {
      const imported = await importPath(name, entry.path);
      if (imported.error) {
        outcome.failed.push({ plugin: name, error: imported.error });
        continue;
      }
      module = imported.module;
    }
    const result = await registry.loadPlugin(name, {
      module,
      config: entry,
      // mcp-factory does not prefix on its own; an explicit prefix in the entry is honoured.
      prefix: typeof entry.prefix === 'string' ? entry.prefix : undefined,
    });
    if (result.ok) outcome.loaded.push(name);
    else
      outcome.failed.push({
        plugin: name,
        error: result.error ?? `Plugin '${name}' failed to load`,
      });
  }
  return outcome;
}
