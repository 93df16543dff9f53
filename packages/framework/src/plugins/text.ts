/**
 * Plain-text views of the registry, for management tools and CLIs. Pure functions: they format
 * what they are given and read nothing else.
 *
 * @module
 */
import type { RegistrySummary } from './registryTypes.ts';

export interface StatusInfo {
  server: string;
  transport: string;
  port?: number;
  healthPort?: number;
  summary: RegistrySummary;
}

/**
 * The status block, one `Label:  value` per line; `Port`/`Health` only when known, resources
 * and prompts only when there are any.
 */
export function pluginStatus(info: StatusInfo): string {
  const { totals } = info.summary;
  const lines = [`Server:    ${info.server}`, `Transport: ${info.transport}`];
  if (info.port !== undefined) lines.push(`Port:      ${info.port}`);
  if (info.healthPort !== undefined) lines.push(`Health:    ${info.healthPort}`);
  lines.push(`Plugins:   ${totals.plugins} loaded`, `Tools:     ${totals.tools} registered`);
  if (totals.resources > 0) lines.push(`Resources: ${totals.resources}`);
  if (totals.prompts > 0) lines.push(`Prompts:   ${totals.prompts}`);
  return lines.join('\n');
}

/** `  name — description` per plugin, sorted; a loaded one is marked `(loaded)`. */
export function pluginList(
  plugins: readonly { name: string; description?: string; loaded?: boolean }[],
): string {
  if (plugins.length === 0) return '(no plugins found in plugin directories)';
  return [...plugins]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((p) => {
      const description = p.description ? ` — ${p.description}` : '';
      return `  ${p.name}${description}${p.loaded ? ' (loaded)' : ''}`;
    })
    .join('\n');
}

/** Sorted tool names, one per line; `empty` is shown when there are none. */
export function toolList(tools: readonly string[], empty = '(no tools loaded)'): string {
  if (tools.length === 0) return empty;
  return [...tools].sort().join('\n');
}
