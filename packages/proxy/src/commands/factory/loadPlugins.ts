/**
 * Loads the chosen plugins one by one into the registry. A plugin that fails (not found, throws
 * in `register`, collides) is reported and skipped; the others still load. An entry with
 * `command` or `url` mirrors that MCP server, one with `openapi` serves that HTTP API, as in
 * mcp-proxy.
 *
 * @module
 */
import {
  type Config,
  errorMessage,
  importPluginSource,
  type PluginRegistry,
  type PluginSource,
  resolvePlugin,
} from '@mcpbox/framework';
import { entryKind, entryModule } from '../../proxy/entryModule.ts';

export interface LoadOutcome {
  loaded: string[];
  failed: Array<{ plugin: string; error: string }>;
}

/**
 * Imports a `plugins.<name>.path` — a file, a plugin folder (its index file) or an npm
 * specifier — the way the registry imports a plugin it looks up by name.
 */
async function importPath(
  registry: PluginRegistry,
  name: string,
  path: string,
): Promise<{ module: unknown; source: PluginSource } | { error: string }> {
  try {
    const source = resolvePlugin(path, registry.pluginDirs);
    return { module: await importPluginSource(source), source };
  } catch (error) {
    return { error: `Plugin '${name}' failed to import from ${path}: ${errorMessage(error)}` };
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
    let imported: { module?: unknown; source?: PluginSource } = {};
    if (entryKind(entry) !== 'plugin') {
      try {
        // A change of an upstream's lists re-registers the mirror, so clients hear of it.
        imported = {
          module: entryModule(name, entry, process.env, (plugin) => registry.reloadPlugin(plugin), {
            secrets: config.secrets,
          }),
        };
      } catch (error) {
        outcome.failed.push({ plugin: name, error: `Plugin '${name}': ${errorMessage(error)}` });
        continue;
      }
    } else if (entry.path) {
      const found = await importPath(registry, name, entry.path);
      if ('error' in found) {
        outcome.failed.push({ plugin: name, error: found.error });
        continue;
      }
      imported = found;
    }
    const result = await registry.loadPlugin(name, {
      ...imported,
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
