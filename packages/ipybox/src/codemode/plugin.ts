/**
 * The `code_mode` plugin: the whole catalog offered as two tools — `search_tools` (ranked search,
 * each hit with its Python import line) and `execute_code` (Python in an ipybox kernel where
 * `mcptools.<plugin>.<tool>` exists for every tool code may call). Loaded by mcp-factory and
 * mcp-proxy for `--code-mode on|both` (or `-p code_mode`); settings under `plugins.code_mode:`
 * (ipybox's keys, plus `approval_rules`, see `settings.ts`).
 *
 * @module
 */
import type { PluginConfig, PluginServer } from '@mcpbox/framework';
import type { OutputScheme } from '../output/outputResources.ts';
import { openIpybox } from '../plugin.ts';
import type { Ipybox } from '../server/ipybox.ts';
import { registerExecuteTool } from '../tools/executeTool.ts';
import { registerSaveSkillTool } from '../tools/saveSkillTool.ts';
import { catalogConnections } from './catalogConnections.ts';
import { CatalogModules } from './catalogModules.ts';
import { registerSearchTool } from './searchTool.ts';
import { approvalPolicyOf, parseCodeModeSettings } from './settings.ts';
import { CodeModeSearch } from './toolSearch.ts';

/** Long outputs and full-size images of `execute_code`: `codemode://outputs|images/<id>`. */
export const CODE_MODE_OUTPUTS: OutputScheme = {
  scheme: 'codemode',
  prefix: 'code',
  tool: 'execute_code',
};

export const description =
  'Code mode: search every tool of the catalog and call them from Python in an ipybox kernel (search_tools, execute_code).';

export const EXECUTE_CODE_DESCRIPTION = `Run Python in a stateful IPython kernel where every tool found by search_tools is a function:
  from mcptools.<plugin> import <tool>
  result = <tool>.run({...arguments...})        # or: await <tool>.arun({...})
Call tools, filter and combine their results in code, and print only what you need: results
that are not printed never enter the conversation. Variables and imports persist between calls;
top-level await works. Returns stdout, stderr and the last expression's value (output longer than
\`max_output_chars\` keeps its head and tail; the full output and full-size images are resources,
codemode://..., named in the result); an exception returns the traceback (a failed tool call
raises ToolError, ToolNotFound, ToolRejected, ... from mcptools._runtime). A cell running longer than \`timeout\` seconds is interrupted, the kernel kept.
Tool calls from code pass the same checks as direct calls (including approval), as you.

A result ending with [new kernel: pass kernel="ipk_..."] ran in a kernel opened for this call:
pass that handle as \`kernel\` in later calls to keep its variables.`;

export async function register(server: PluginServer, config: PluginConfig = {}): Promise<Ipybox> {
  const { catalog } = server as Partial<PluginServer>;
  if (catalog === undefined) {
    throw new Error('the code_mode plugin needs a server with a catalog view (mcpbox framework)');
  }
  const settings = parseCodeModeSettings(config, server.name);
  let ipybox: Ipybox | undefined;
  const modules = new CatalogModules({
    catalog,
    workspace: settings.ipybox.workspace,
    self: server.name,
    registered: () => ipybox?.registeredServers ?? [],
    logger: server.logger,
  });
  ipybox = await openIpybox(server, settings.ipybox, {
    logger: server.logger,
    toolConnections: (pool, cell) => catalogConnections(pool, cell, catalog, modules),
    approvalPolicy: approvalPolicyOf(settings),
  });
  await modules.sync();
  const stopFollowing = catalog.onChange(() => modules.changed());
  server.onUnload(() => {
    stopFollowing();
    modules.close();
  });
  ipybox.followSessions(server);
  const search = new CodeModeSearch(() => ipybox, server.logger);
  registerSearchTool(server, search, modules, async () => {
    await ipybox?.adoptRegistrations();
  });
  registerExecuteTool(server, ipybox, {
    name: 'execute_code',
    title: 'Execute code',
    description: EXECUTE_CODE_DESCRIPTION,
    // The ipybox plugin may be loaded beside us and owns the ipybox:// output resources.
    outputResources: CODE_MODE_OUTPUTS,
    beforeCell: async (lease) => {
      await ipybox?.adoptRegistrations();
      await modules.forgetStale(lease.session);
    },
  });
  registerSaveSkillTool(server, ipybox, 'save_code_skill');
  server.logger.info(
    `code mode: workspace ${settings.ipybox.workspace}, ${modules.layout.toolCount} tools callable from code`,
  );
  return ipybox;
}
