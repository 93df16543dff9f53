/**
 * Which plugins mcp-factory loads: `--plugins` if given, else the config's `plugins_load`, else
 * its `autoload`, else every `plugins:` entry not marked `enabled: false`.
 *
 * @module
 */
import type { Config } from '@mcpbox/framework';

export interface PluginSelection {
  names: string[];
  /** Where the list came from, for the start-up log line. */
  from: '--plugins' | 'plugins_load' | 'autoload' | 'plugins' | 'nothing';
}

export function selectPlugins(
  flag: readonly string[] | undefined,
  config: Config,
): PluginSelection {
  const unique = (names: readonly string[]) => [...new Set(names)];
  if (flag && flag.length > 0) return { names: unique(flag), from: '--plugins' };
  if (config.plugins_load.length > 0)
    return { names: unique(config.plugins_load), from: 'plugins_load' };
  if (config.autoload.length > 0) return { names: unique(config.autoload), from: 'autoload' };
  const enabled = Object.entries(config.plugins)
    .filter(([, entry]) => entry.enabled !== false)
    .map(([name]) => name);
  return enabled.length > 0 ? { names: enabled, from: 'plugins' } : { names: [], from: 'nothing' };
}
