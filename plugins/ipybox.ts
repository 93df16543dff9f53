/**
 * ipybox — the ipybox MCP server as a plugin: Python in stateful IPython kernels, MCP tools
 * callable from kernel code. The implementation lives in `@mcpbox/ipybox`; this file only makes
 * it loadable by name: `mcp-factory -p ipybox`, `mcp-proxy -a ipybox`. It ships with
 * `@mcpbox/proxy`, which does not depend on `@mcpbox/ipybox` (an optional peer): imported when
 * the plugin registers, so a missing package is a clear error rather than a failed start.
 *
 * Settings go under `plugins.ipybox:` in a YAML config (workspace, python, approval,
 * approval_timeout, max_kernels, kernel_idle_timeout, sandbox, sandbox_config); the workspace
 * defaults to `./workspace`.
 */
import type { PluginConfig, PluginServer } from '@mcpbox/framework';

// The same text as @mcpbox/ipybox's plugin description (a listing must not need the package).
export const description =
  'Runs Python in stateful IPython kernels; kernel code calls MCP tools through generated modules.';

/** `@mcpbox/ipybox`, or an error saying to install it (for `plugin`, which needs it). */
export async function ipyboxPackage(plugin = 'ipybox'): Promise<typeof import('@mcpbox/ipybox')> {
  try {
    return await import('@mcpbox/ipybox');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' && String(error).includes("'@mcpbox/ipybox'")) {
      throw new Error(
        `the ${plugin} plugin needs the @mcpbox/ipybox package: install it next to @mcpbox/proxy ` +
          '(npm install @mcpbox/ipybox)',
      );
    }
    throw error;
  }
}

export async function register(server: PluginServer, config: PluginConfig): Promise<void> {
  const { registerIpyboxPlugin } = await ipyboxPackage();
  await registerIpyboxPlugin(server, config);
}
