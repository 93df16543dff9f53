/**
 * The `proxy__*` MCP tools, registered as the internal plugin `proxy` through the registry so
 * the tool-call interceptors (log, validator, gate) see them like any other tool. Texts follow
 * the Python proxy; failures are `isError` results that start with `Error:`.
 *
 * - `proxy__load|unload|reload(plugin)`, `proxy__status()`, `proxy__list()` (available, not
 *   loaded), `proxy__tools(dynamic_only)`, `proxy__command(command, args)`;
 * - `proxy__run(tool, arguments)` only with `dynamic_dispatch: true`: for clients that ignore
 *   `tools/list_changed`, it calls tools loaded after start-up; an unknown name is answered with
 *   the closest matches ("did you mean") from the catalog's one search index;
 * - `proxy__search(query, limit)` only with `dynamic_dispatch: true`: that search, ranked.
 *
 * Those that change what runs — load, unload, reload, a plugin's command, `proxy__run` (which
 * reaches every tool, privileged ones too) — are privileged (the framework's
 * `catalog/privileged.ts`): the operator's, never kernel code's, however it reaches this server.
 *
 * @module
 */

import {
  type LoadResult,
  type PluginModule,
  type PluginServer,
  pluginList,
  pluginStatus,
  type StatusInfo,
  toolList,
} from '@mcpbox/framework';
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { clusterText } from './clusterView.ts';
import type { InnerClient } from './innerClient.ts';
import type { PluginManager } from './manager.ts';

export const MANAGEMENT_PLUGIN = 'proxy';

export interface ManagementToolsOptions {
  manager: PluginManager;
  /** Calls a tool the way a client would (for `proxy__run`). */
  inner: InnerClient;
  /** Server name, transport and ports for `proxy__status`. */
  status: () => Omit<StatusInfo, 'summary'>;
  dynamicDispatch: boolean;
}

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });
const error = (value: string): CallToolResult => ({
  content: [{ type: 'text', text: `Error: ${value}` }],
  isError: true,
});

const names = (list: readonly string[]) => (list.length > 0 ? list.join(', ') : '(none)');

/** `Loaded 'echo': echo, echo_upper`, plus resources/prompts when the plugin has any. */
export function describeOperation(verb: string, result: LoadResult, removed = false): string {
  const lines = [`${verb} '${result.plugin}': ${removed ? 'removed ' : ''}${names(result.tools)}`];
  if (result.resources.length > 0) lines.push(`Resources: ${result.resources.join(', ')}`);
  if (result.prompts.length > 0) lines.push(`Prompts: ${result.prompts.join(', ')}`);
  return lines.join('\n');
}

function dispatchHint(tools: readonly string[]): string {
  if (tools.length === 0) return '';
  return (
    "\n\nThese tools are dynamically loaded. Call them via proxy__run(tool='<name>', " +
    `arguments={...}). Example: proxy__run(tool='${tools[0]}')`
  );
}

/** One `proxy__search` hit: name, owner, how to call it, and the first line of its description. */
function searchLine(plugin: string, tool: Tool, manager: PluginManager): string {
  const how = manager.isDynamicTool(tool.name) ? ', via proxy__run' : '';
  const about = (tool.description ?? '').split('\n')[0];
  return `${tool.name} (${plugin}${how})${about ? `: ${about}` : ''}`;
}

const pluginArg = { plugin: z.string().min(1).describe('Plugin name') };

export function managementTools(options: ManagementToolsOptions): PluginModule {
  const { manager, inner, dynamicDispatch } = options;

  /** The hint goes with tools a client has to reach through proxy__run. */
  const hintFor = (result: LoadResult) =>
    dynamicDispatch && manager.startupDone
      ? dispatchHint(result.tools.filter((t) => manager.isDynamicTool(t)))
      : '';

  return {
    description: 'mcp-proxy management tools (built in)',
    register(server: PluginServer) {
      server.registerTool(
        'proxy__load',
        {
          description: 'Load a plugin (or a configured MCP server) into the running proxy.',
          inputSchema: pluginArg,
          privileged: true,
        },
        async ({ plugin }) => {
          const result = await manager.load(plugin);
          if (!result.ok) return error(result.error ?? 'load failed');
          return text(describeOperation('Loaded', result) + hintFor(result));
        },
      );

      server.registerTool(
        'proxy__unload',
        {
          description: 'Unload a plugin: its tools, resources and prompts disappear.',
          inputSchema: pluginArg,
          privileged: true,
        },
        async ({ plugin }) => {
          const result = await manager.unload(plugin);
          if (!result.ok) return error(result.error ?? 'unload failed');
          return text(describeOperation('Unloaded', result, true));
        },
      );

      server.registerTool(
        'proxy__reload',
        {
          description:
            'Reload a plugin from its files. The old version keeps serving if the new one fails to load.',
          inputSchema: pluginArg,
          privileged: true,
        },
        async ({ plugin }) => {
          const result = await manager.reload(plugin, {
            howToLoad: `proxy__load(plugin='${plugin}')`,
          });
          if (!result.ok) return error(result.error ?? 'reload failed');
          return text(describeOperation('Reloaded', result) + hintFor(result));
        },
      );

      server.registerTool(
        'proxy__status',
        { description: 'Server, transport, ports and how many plugins and tools are loaded.' },
        async () => {
          const text = pluginStatus({
            ...options.status(),
            summary: manager.registry.getSummary(),
          });
          return manager.clusterView
            ? `${text}\n${clusterText(await manager.clusterView())}`
            : text;
        },
      );

      server.registerTool(
        'proxy__list',
        { description: 'Plugins that are available but not loaded.' },
        async () => {
          const all = await manager.available();
          if (all.length === 0) return pluginList([]);
          const notLoaded = all.filter((p) => !p.loaded);
          if (notLoaded.length === 0) return '(every available plugin is loaded)';
          return pluginList(notLoaded);
        },
      );

      server.registerTool(
        'proxy__tools',
        {
          description: 'Names of loaded tools; dynamic_only lists those loaded after start-up.',
          inputSchema: {
            dynamic_only: z.boolean().default(false).describe('Only tools loaded after start-up'),
          },
        },
        ({ dynamic_only }) =>
          dynamic_only
            ? toolList(manager.dynamicTools(), '(no dynamic tools loaded)')
            : toolList(manager.registry.allTools()),
      );

      server.registerTool(
        'proxy__command',
        {
          description: 'Run a management command a plugin registered; without a name, list them.',
          inputSchema: {
            command: z.string().optional().describe('Command name'),
            // A free-form object, said so (`additionalProperties: true`): each command reads its own.
            args: z
              .record(z.string(), z.unknown())
              .meta({ additionalProperties: true })
              .optional()
              .describe('Arguments for the command: an object of named values'),
          },
          privileged: true,
        },
        async ({ command, args }) => {
          if (!command) {
            const list = manager.commands.list();
            if (list.length === 0) return '(no commands registered)';
            return list.map((c) => `  ${c.name}${c.plugin ? ` (${c.plugin})` : ''}`).join('\n');
          }
          const outcome = await manager.commands.run(command, args ?? {});
          if (!outcome.ok) return error(outcome.error);
          const result = outcome.result;
          if (result === undefined || result === null) return '(no result)';
          return typeof result === 'string' ? result : JSON.stringify(result, null, 2);
        },
      );

      if (!dynamicDispatch) return;
      server.registerTool(
        'proxy__search',
        {
          description:
            'Search every loaded tool by what it does (names, descriptions, parameters); best first.',
          inputSchema: {
            query: z.string().min(1).describe('What the tool should do, in words'),
            limit: z.number().int().min(1).max(50).default(10).describe('Most tools to return'),
          },
        },
        ({ query, limit }) => {
          const hits = server.catalog.search(query, { limit });
          if (hits.length === 0) return `(no tool matches '${query}')`;
          return hits.map(({ plugin, tool }) => searchLine(plugin, tool, manager)).join('\n');
        },
      );

      server.registerTool(
        'proxy__run',
        {
          description:
            'Call a tool that was loaded after start-up (for clients that do not refresh their tool list).',
          inputSchema: {
            tool: z.string().min(1).describe('Name of the dynamically loaded tool'),
            arguments: z
              .record(z.string(), z.unknown())
              .meta({ additionalProperties: true })
              .optional()
              .describe('Arguments for the tool'),
          },
          privileged: true,
        },
        async ({ tool, arguments: args }, ctx) => {
          if (manager.registry.findToolOwner(tool) === undefined) {
            const similar = server.catalog
              .search(tool, { limit: 3 })
              .filter((hit) => hit.plugin !== MANAGEMENT_PLUGIN)
              .map((hit) => hit.tool.name);
            const guess = similar.length > 0 ? ` Did you mean: ${similar.join(', ')}?` : '';
            return error(
              `'${tool}' not found.${guess} Available dynamic tools: ${names(manager.dynamicTools())}`,
            );
          }
          if (!manager.isDynamicTool(tool)) {
            return error(`'${tool}' is a static tool — call it directly, not via proxy__run.`);
          }
          try {
            return await inner.callTool(tool, args, ctx);
          } catch (e) {
            return {
              content: [{ type: 'text', text: `Error calling '${tool}': ${(e as Error).message}` }],
              isError: true,
            };
          }
        },
      );
    },
  };
}
