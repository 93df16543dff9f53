/**
 * The JSON views of the registry the management API and `/health/plugins` serve, in the Python
 * proxy's shape: totals at the top, then one object per plugin.
 *
 * @module
 */
import type { RegistrySummary } from '@mcpbox/framework';

export interface PluginStatus {
  tools: string[];
  tool_count: number;
  resources: string[];
  resource_count: number;
  prompts: string[];
  prompt_count: number;
  internal: boolean;
  loaded_at: string;
}

export interface ProxyStatus {
  total_tools: number;
  total_resources: number;
  total_prompts: number;
  total_plugins: number;
  plugins: Record<string, PluginStatus>;
}

export function statusJson(summary: RegistrySummary): ProxyStatus {
  const plugins: Record<string, PluginStatus> = {};
  for (const p of summary.plugins) {
    plugins[p.name] = {
      tools: p.tools,
      tool_count: p.tools.length,
      resources: p.resources,
      resource_count: p.resources.length,
      prompts: p.prompts,
      prompt_count: p.prompts.length,
      internal: p.internal,
      loaded_at: p.loaded_at,
    };
  }
  return {
    total_tools: summary.totals.tools,
    total_resources: summary.totals.resources,
    total_prompts: summary.totals.prompts,
    total_plugins: summary.totals.plugins,
    plugins,
  };
}
