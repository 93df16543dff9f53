/**
 * echo — the smallest useful plugin, and the one to copy when writing your own.
 *
 * The contract: a plugin is a module that exports `register(server, config)`. `server` offers
 * the same registration calls as the SDK's `McpServer` (`registerTool`, `registerResource`,
 * `registerPrompt`), so code written for an `McpServer` works here unchanged. Everything
 * registered belongs to this plugin: unloading it removes exactly that, and a name another
 * plugin already uses makes the load fail before anything is registered.
 *
 * A handler may return a string (sent as one text block) or a full `CallToolResult`. A handler
 * that throws becomes an `isError` result carrying the message; the server stays up.
 *
 * Try it: `mcp-factory -p echo` (stdio) or `mcp-factory --http 8000 -p echo`.
 */
import type { PluginServer } from '@mcpbox/framework';
import { z } from 'zod';

/** Shown by plugin listings. */
export const description = 'Echoes a message back, as written or upper-cased.';

export function register(server: PluginServer): void {
  // The input schema is a zod shape: clients see it as JSON Schema, and arguments are
  // validated before the handler runs (a wrong type is an error naming the field).
  const input = { message: z.string().describe('The text to send back') };

  server.registerTool(
    'echo',
    {
      title: 'Echo',
      description: 'Returns the message unchanged.',
      inputSchema: input,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ message }) => message,
  );

  server.registerTool(
    'echo_upper',
    {
      title: 'Echo in capitals',
      description: 'Returns the message in upper case.',
      inputSchema: input,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ message }) => message.toUpperCase(),
  );
}
