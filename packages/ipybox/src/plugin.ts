/**
 * The ipybox MCP server as an mcpbox plugin: `mcp-factory -p ipybox`, `mcp-proxy -a ipybox`, or
 * the `ipybox` CLI. Settings come from `plugins.ipybox:` in a YAML config (see `settings.ts`):
 *
 * ```yaml
 * plugins:
 *   ipybox:
 *     workspace: ./workspace
 *     approval: elicit        # auto | elicit | deny
 *     max_kernels: 4
 *     kernel_idle_timeout: 1800
 * ```
 *
 * @module
 */
import type { PluginConfig, PluginServer } from '@mcpbox/framework';
import { checkPython } from './kernel/pythonCheck.ts';
import { clusterKernelDirectory } from './kernels/kernelDirectory.ts';
import { pythonProbe, sweepLeftovers } from './kernels/startupWork.ts';
import { Ipybox, type IpyboxOptions } from './server/ipybox.ts';
import { type IpyboxSettings, parseSettings } from './settings.ts';
import { serveSavedSkills } from './skills/servedSkills.ts';
import { ipyboxAdmin } from './tools/adminSurface.ts';
import { registerIpyboxTools } from './tools/tools.ts';

export const description =
  'Runs Python in stateful IPython kernels; kernel code calls MCP tools through generated modules.';

/** Every Ipybox of this process still registered, for `closeAll()`. */
const instances = new Set<Ipybox>();

/**
 * Registers the ipybox tools. The `Ipybox` (kernels, tool servers) is closed when this
 * registration ends — the plugin unloaded, or replaced by a reload (the old one only) — and is
 * returned so an owner can also `close()` it.
 */
export async function register(
  server: PluginServer,
  config: PluginConfig = {},
  options: IpyboxOptions = {},
): Promise<Ipybox> {
  const ipybox = await openIpybox(server, parseSettings(config), options);
  registerIpyboxTools(server, ipybox);
  // Approvals and kernels for the host's operator (mcp-proxy's web console).
  server.publishAdmin('ipybox', ipyboxAdmin(ipybox));
  server.logger.info(
    `ipybox workspace ${ipybox.settings.workspace} (approval: ${ipybox.settings.approval})`,
  );
  return ipybox;
}

/**
 * The `Ipybox` of a plugin registration (ipybox's, code mode's): Python checked, files of dead
 * ipybox processes swept, closed when the registration ends.
 */
export async function openIpybox(
  server: PluginServer,
  settings: IpyboxSettings,
  options: IpyboxOptions = {},
): Promise<Ipybox> {
  // Both at once (each mostly waits: on Python starting, on the file system); the `ipybox`
  // command began both before its modules loaded (kernels/startupWork.ts).
  const [swept] = await Promise.all([
    // Kernel, sandbox and socket directories and the sandbox's sockets a SIGKILLed ipybox could
    // not remove (a kernel's directory holds its signing key): gone before we start our own.
    sweepLeftovers(),
    // A wrong interpreter fails the start, saying the fix, instead of the first cell.
    checkPython(settings.basePython, '--python (plugin setting python)', pythonProbe),
  ]);
  if (swept.length > 0) {
    server.logger.info(`ipybox: removed ${swept.length} files of dead ipybox processes`);
  }
  // Cluster mode with kernels on a Jupyter server: any replica reaches any caller's kernel.
  const cluster = await clusterKernelDirectory(server, settings);
  const ipybox = await Ipybox.create(settings, {
    logger: server.logger,
    audit: server.audit,
    // A host without the framework's catalog (a bare SDK server) keeps no results to load.
    openResult: server.catalog && ((handle, caller) => server.catalog.openResult(handle, caller)),
    ...options,
  });
  if (cluster) ipybox.kernels.shareThrough(cluster.directory);
  instances.add(ipybox);
  server.onUnload(async () => {
    instances.delete(ipybox);
    await ipybox.close();
    await cluster?.close();
  });
  await serveSavedSkills(server, ipybox.skills);
  return ipybox;
}

/** Closes every ipybox kernel and tool server of this process. */
export async function closeAll(): Promise<void> {
  const all = [...instances];
  instances.clear();
  await Promise.allSettled(all.map((i) => i.close()));
}
