/**
 * The `proxy__*` MCP tools, registered as the internal plugin `proxy` through the registry so
 * the tool-call interceptors (log, validator, gate) see them like any other tool. Texts follow
 * the Python proxy; failures are `isError` results that start with `Error:`.
 *
 * - one tool per management operation of `operations/table.ts` (`proxy__load|unload|reload`,
 *   `proxy__status`, `proxy__list`, `proxy__tools`, `proxy__command`), in the table's order,
 *   with its summary, schema and privilege, answered by the operation's handler;
 * - `proxy__search` and `proxy__run` only with `dynamic_dispatch: true` (`dispatchTools.ts`).
 *
 * Those that change what runs — load, unload, reload, a plugin's command, `proxy__run` (which
 * reaches every tool, privileged ones too) — are privileged (the framework's
 * `catalog/privileged.ts`): the operator's, never kernel code's, however it reaches this server.
 *
 * @module
 */

import type {
  PluginModule,
  PluginServer,
  StatusInfo,
  ToolConfig,
  ToolContext,
} from '@mcpbox/framework';
import { type Caller, perform, type ToolDoor } from '../operations/handlers.ts';
import { OPERATIONS, type OperationArgs, operationNamed } from '../operations/table.ts';
import type { InnerClient } from '../proxy/innerClient.ts';
import type { PluginManager } from '../proxy/manager.ts';
import { registerRunTool, registerSearchTool } from './dispatchTools.ts';

export const MANAGEMENT_PLUGIN = 'proxy';

export interface ManagementToolsOptions {
  manager: PluginManager;
  /** Calls a tool the way a client would (for `proxy__run`). */
  inner: InnerClient;
  /** Server name, transport and ports for `proxy__status`. */
  status: () => Omit<StatusInfo, 'summary'>;
  dynamicDispatch: boolean;
}

/** The tools' own way to say how a plugin is loaded: `proxy__load(plugin='echo')`. */
const howToLoad = (plugin: string) => `${operationNamed('load').tool}(plugin='${plugin}')`;

/**
 * The question an `aboutCaller` operation's tool asks: about the caller's own principal, with
 * the groups, claims and scopes its credentials carry (none the caller writes).
 */
function ownQuestion(args: OperationArgs, ctx: ToolContext): OperationArgs {
  const { groups: _g, claims: _c, scopes: _s, ...rest } = args;
  return { ...rest, principal: ctx.principal.id };
}

/**
 * One tool per operation of the table. What a tool names of the catalog (`proxy__tools`) is
 * what its caller may reach, as the caller's own `tools/list` shows it.
 */
function registerOperationTools(server: PluginServer, door: ToolDoor, inner: InnerClient): void {
  const caller: Caller = { manager: door.manager, howToLoad };
  for (const operation of OPERATIONS) {
    const answer = async (args: OperationArgs, ctx: ToolContext) =>
      (
        await perform(
          operation.name,
          { ...caller, principal: ctx.principal.id },
          'aboutCaller' in operation ? ownQuestion(args, ctx) : args,
        )
      ).tool({
        ...door,
        mayReach: (tool) => inner.mayReach(tool, ctx),
      });
    const config: ToolConfig = {
      description: operation.summary,
      ...('privileged' in operation && { privileged: operation.privileged }),
    };
    // As with the SDK, a tool without a schema gets only the context.
    if ('args' in operation) {
      server.registerTool(operation.tool, { ...config, inputSchema: operation.args }, answer);
    } else {
      server.registerTool(operation.tool, config, (ctx) => answer({}, ctx));
    }
  }
}

export function managementTools(options: ManagementToolsOptions): PluginModule {
  const { manager, inner, dynamicDispatch } = options;
  const door: ToolDoor = { manager, dynamicDispatch, status: options.status };
  return {
    description: 'mcp-proxy management tools (built in)',
    register(server: PluginServer) {
      registerOperationTools(server, door, inner);
      if (!dynamicDispatch) return;
      registerSearchTool(server, manager);
      registerRunTool(server, manager, inner, MANAGEMENT_PLUGIN);
    },
  };
}
