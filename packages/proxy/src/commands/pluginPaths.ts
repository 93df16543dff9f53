/**
 * Plugins given by path in a start-up list — `mcp-factory -p /abs/plugins/demo_full ./weather.ts`,
 * `mcp-proxy -a …`, the config's `plugins_load:` / `autoload:` — become `plugins:` entries named
 * after the folder or the file (`demo_full`, `weather`). The plugin then goes by a name
 * everywhere (tool listings, logs, the management API, its settings), and paths stay where the
 * operator wrote them: on the command line and in the configuration.
 *
 * @module
 */
import { resolve } from 'node:path';
import { type Config, isPluginPath, type PluginEntry, pluginNameOfPath } from '@mcpbox/framework';
import { fail } from './exit.ts';

export interface NamedPlugins {
  /** The list, each path replaced by its plugin's name. */
  names: string[];
  /** The configuration with a `plugins.NAME.path` entry for each path (settings kept). */
  config: Config;
  /** Name → absolute path, for the plugins the list gave by path. */
  paths: Map<string, string>;
}

/** Where an existing entry already says the plugin comes from, if it says so. */
function originOf(entry: PluginEntry | undefined): string | undefined {
  return entry?.path ?? entry?.command ?? entry?.url;
}

/**
 * Names the paths in `specs` (relative ones against `cwd`); names and npm specifiers pass through.
 *
 * @throws ExitError (after printing why) when two different plugins would get the same name.
 */
export function namePluginPaths(
  specs: readonly string[],
  config: Config,
  cwd: string,
): NamedPlugins {
  const plugins = { ...config.plugins };
  const paths = new Map<string, string>();
  const names = specs.map((spec) => {
    if (!isPluginPath(spec)) return spec;
    const path = resolve(cwd, spec);
    const name = pluginNameOfPath(path);
    const other = paths.get(name) ?? originOf(plugins[name]);
    if (other !== undefined && other !== path) {
      throw fail(
        `two plugins would be named '${name}': ${path} and ${other}. ` +
          'Rename one, or give it a plugins: entry with its own name and path in the configuration.',
      );
    }
    paths.set(name, path);
    plugins[name] = { ...plugins[name], path };
    return name;
  });
  return { names, config: { ...config, plugins }, paths };
}
