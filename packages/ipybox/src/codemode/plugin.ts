/**
 * The `code_mode` plugin: the whole catalog offered as two tools — `search_tools` (ranked search,
 * each hit with its Python import line) and `execute_code` (Python in an ipybox kernel where
 * `mcptools.<plugin>.<tool>` exists for every tool code may call; TypeScript or JavaScript in an
 * isolate where `tools.<plugin>.<tool>` does, `js/`). Loaded by mcp-factory and
 * mcp-proxy for `--code-mode on|both` (or `-p code_mode`); settings under `plugins.code_mode:`
 * (ipybox's keys, plus `approval_rules`, see `settings.ts`).
 *
 * @module
 */
import type { PluginConfig, PluginServer } from '@mcpbox/framework';
import type { KernelLease } from '../kernels/kernels.ts';
import type { OutputScheme } from '../output/outputResources.ts';
import { openIpybox } from '../plugin.ts';
import type { Ipybox } from '../server/ipybox.ts';
import { registerSaveSkillTool } from '../tools/saveSkillTool.ts';
import { catalogConnections } from './catalogConnections.ts';
import { CatalogModules } from './catalogModules.ts';
import { registerExecuteCode } from './executeCode.ts';
import { quickJs } from './js/isolate.ts';
import { JsRunner } from './js/jsRunner.ts';
import { warmUp } from './js/prepare.ts';
import { registerSearchTool } from './searchTool.ts';
import { approvalPolicyOf, type CodeLanguage, parseCodeModeSettings } from './settings.ts';
import { CodeModeSearch } from './toolSearch.ts';

/** Long outputs and full-size images of `execute_code`: `codemode://outputs|images/<id>`. */
export const CODE_MODE_OUTPUTS: OutputScheme = {
  scheme: 'codemode',
  prefix: 'code',
  tool: 'execute_code',
};

export const description =
  'Code mode: search every tool of the catalog and call them from code — TypeScript or JavaScript in an isolate, Python in an ipybox kernel (search_tools, execute_code).';

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
A result you saw only as a preview (results://<id>) loads whole in code:
  from mcptools import results; df = results.load("results://<id>")   # a DataFrame for tabular JSON

A result ending with [new kernel: pass kernel="ipk_..."] ran in a kernel opened for this call:
pass that handle as \`kernel\` in later calls to keep its variables.`;

export const EXECUTE_JS_DESCRIPTION = `With language "typescript" or "javascript", code runs in an isolated JavaScript runtime
(no file system, network, process or modules) where every tool found by search_tools is a function:
  const result = await tools.<plugin>.<tool>({...arguments...});
Top-level await works; console.log prints; the last expression's value is returned. Each call
starts fresh except \`session\`, an object kept between your calls (JSON values only, bounded).
A refused or failed tool call throws (ToolError, ToolNotFound, ToolRejected, ...; the message
says why). Memory, time (\`timeout\`) and output are limited. A result you saw only as a
preview loads whole: const rows = await results.load("results://<id>");`;

/** The `execute_code` description for the languages offered. */
function executeDescription(languages: readonly CodeLanguage[]): string {
  const js = languages.some((l) => l !== 'python');
  if (!languages.includes('python')) {
    return `Run TypeScript or JavaScript.\n${EXECUTE_JS_DESCRIPTION}`;
  }
  return js
    ? `${EXECUTE_CODE_DESCRIPTION}\n\n${EXECUTE_JS_DESCRIPTION}\n\nDefault language: ${languages[0]}.`
    : EXECUTE_CODE_DESCRIPTION;
}

/**
 * Registers `search_tools` and `execute_code`. The `Ipybox` (Python kernels) is opened only when
 * `languages` offers Python, and returned then: a deployment with only TypeScript/JavaScript
 * starts no kernel and needs no Python.
 */
export async function register(
  server: PluginServer,
  config: PluginConfig = {},
): Promise<Ipybox | undefined> {
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
  const approvalPolicy = approvalPolicyOf(settings);
  if (settings.languages.includes('python')) {
    ipybox = await openIpybox(server, settings.ipybox, {
      logger: server.logger,
      toolConnections: (pool, cell) => catalogConnections(pool, cell, catalog, modules),
      approvalPolicy,
    });
  }
  await modules.sync();
  const stopFollowing = catalog.onChange(() => modules.changed());
  server.onUnload(() => {
    stopFollowing();
    modules.close();
  });
  ipybox?.followSessions(server);
  const search = new CodeModeSearch(() => ipybox, server.logger);
  registerSearchTool(server, search, modules, async () => {
    await ipybox?.adoptRegistrations();
  });
  const js = new JsRunner({
    catalog,
    self: server.name,
    modules,
    settings: settings.ipybox,
    approvalPolicy,
    audit: server.audit,
    logger: server.logger,
  });
  if (settings.languages.some((language) => language !== 'python')) {
    // In the background: the WebAssembly module, the parser and esbuild, before the first call.
    void Promise.all([quickJs(), warmUp()]).catch((error) =>
      server.logger.warn(`code mode: preparing the JavaScript runtime failed: ${error}`),
    );
  }
  registerExecuteCode(server, {
    settings: settings.ipybox,
    languages: settings.languages,
    description: executeDescription(settings.languages),
    // The ipybox plugin may be loaded beside us and owns the ipybox:// output resources.
    outputResources: CODE_MODE_OUTPUTS,
    js,
    beforeJs: () => modules.settled(),
    ...(ipybox && {
      python: {
        ipybox,
        beforeCell: async (lease: KernelLease) => {
          await ipybox?.adoptRegistrations();
          await modules.forgetStale(lease.session);
        },
      },
    }),
  });
  // Skills are saved from the code of Python cells: with Python only.
  if (ipybox) registerSaveSkillTool(server, ipybox, 'save_code_skill');
  server.logger.info(
    `code mode (${settings.languages.join(', ')}): workspace ${settings.ipybox.workspace}, ${modules.layout.toolCount} tools callable from code`,
  );
  return ipybox;
}
