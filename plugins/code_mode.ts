/**
 * code_mode — the whole catalog as two tools: `search_tools` (ranked search, each hit with its
 * Python import line) and `execute_code` (Python in an ipybox kernel where
 * `mcptools.<plugin>.<tool>` exists for every tool of every loaded plugin and mirrored server).
 * The implementation lives in `@mcpbox/ipybox`; this file makes it loadable by name:
 * `mcp-factory --code-mode on`, `mcp-factory -p echo code_mode`.
 *
 * Settings go under `plugins.code_mode:` — ipybox's keys (workspace, python, approval,
 * approval_timeout, max_kernels, kernel_idle_timeout, sandbox, sandbox_config, ...) plus
 * `approval_rules: {"memory": "elicit", "memory.delete_entities": "deny"}`.
 */
import type { PluginConfig, PluginServer } from '@mcpbox/framework';
import { ipyboxPackage } from './ipybox.ts';

// The same text as @mcpbox/ipybox's (a listing must not need the package).
export const description =
  'Code mode: search every tool of the catalog and call them from Python in an ipybox kernel (search_tools, execute_code).';

export async function register(server: PluginServer, config: PluginConfig): Promise<void> {
  const { registerCodeModePlugin } = await ipyboxPackage('code_mode');
  await registerCodeModePlugin(server, config);
}
