/**
 * ipybox — the ipybox MCP server as a plugin: Python in stateful IPython kernels, MCP tools
 * callable from kernel code. The implementation lives in `@mcpbox/ipybox`; this file only makes
 * it loadable by name: `mcp-factory -p ipybox`, `mcp-proxy -a ipybox`.
 *
 * Settings go under `plugins.ipybox:` in a YAML config (workspace, python, approval,
 * approval_timeout, max_kernels, kernel_idle_timeout, sandbox, sandbox_config); the workspace
 * defaults to `./workspace`.
 */
import type { PluginConfig, PluginServer } from '@mcpbox/framework';
import { ipyboxPluginDescription, registerIpyboxPlugin } from '@mcpbox/ipybox';

export const description = ipyboxPluginDescription;

export async function register(server: PluginServer, config: PluginConfig): Promise<void> {
  await registerIpyboxPlugin(server, config);
}
