/**
 * `proxy__search` and `proxy__run`, registered beside the management tools only with
 * `dynamic_dispatch: true`: for clients that ignore `tools/list_changed`, a ranked search of
 * every loaded tool and a way to call the tools loaded after start-up. They dispatch to tools,
 * not to the plugin manager, so they are not management operations (`operations/table.ts`).
 *
 * Both answer for their caller: a search finds only what the caller's `tools/list` shows (its
 * view and the policy), and `proxy__run` names, suggests and tells apart (static or dynamic)
 * only such tools. Any other name goes to the dispatcher, which answers "not found" (not in the
 * caller's view) or the refusal naming the policy rule, exactly as a direct `tools/call` would.
 *
 * @module
 */
import type { PluginServer } from '@mcpbox/framework';
import { ProtocolError, ProtocolErrorCode, type Tool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { error, names } from '../operations/toolText.ts';
import type { InnerClient } from '../proxy/innerClient.ts';
import type { PluginManager } from '../proxy/manager.ts';

/** One `proxy__search` hit: name, owner, how to call it, and the first line of its description. */
function searchLine(plugin: string, tool: Tool, manager: PluginManager): string {
  const how = manager.isDynamicTool(tool.name) ? ', via proxy__run' : '';
  const about = (tool.description ?? '').split('\n')[0];
  return `${tool.name} (${plugin}${how})${about ? `: ${about}` : ''}`;
}

export function registerSearchTool(server: PluginServer, manager: PluginManager): void {
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
    ({ query, limit }, ctx) => {
      const hits = server.catalog.search(query, { limit, caller: ctx });
      if (hits.length === 0) return `(no tool matches '${query}')`;
      return hits.map(({ plugin, tool }) => searchLine(plugin, tool, manager)).join('\n');
    },
  );
}

/**
 * `proxy__run`: an unknown name is answered with the closest matches ("did you mean") from the
 * catalog's one search index, leaving out the management plugin's own tools.
 */
export function registerRunTool(
  server: PluginServer,
  manager: PluginManager,
  inner: InnerClient,
  managementPlugin: string,
): void {
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
      const notFound = () => {
        const similar = server.catalog
          .search(tool, { limit: 3, caller: ctx })
          .filter((hit) => hit.plugin !== managementPlugin)
          .map((hit) => hit.tool.name);
        const guess = similar.length > 0 ? ` Did you mean: ${similar.join(', ')}?` : '';
        const dynamic = manager.dynamicTools().filter((name) => inner.mayReach(name, ctx));
        return error(`'${tool}' not found.${guess} Available dynamic tools: ${names(dynamic)}`);
      };
      // A tool the pin book holds back goes on to the call, which names the quarantine.
      const held = manager.registry.catalog.heldTool(tool) !== undefined;
      if (manager.registry.findToolOwner(tool) === undefined && !held) return notFound();
      if (inner.mayReach(tool, ctx) && !manager.isDynamicTool(tool)) {
        return error(`'${tool}' is a static tool — call it directly, not via proxy__run.`);
      }
      try {
        return await inner.callTool(tool, args, ctx);
      } catch (e) {
        // Not in the caller's view: the same answer as a tool that is not there.
        if (
          e instanceof ProtocolError &&
          e.code === ProtocolErrorCode.InvalidParams &&
          /not found/.test(e.message)
        ) {
          return notFound();
        }
        return {
          content: [{ type: 'text', text: `Error calling '${tool}': ${(e as Error).message}` }],
          isError: true,
        };
      }
    },
  );
}
