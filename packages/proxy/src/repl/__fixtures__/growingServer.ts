/**
 * A tiny stdio MCP server for the mcp-client tests: four tools, and calling `grow` registers two
 * more, so the server sends `notifications/tools/list_changed` on demand. `fail` answers with an
 * isError result; `slow` reports progress and then waits to be cancelled. Run as `node --import tsx growingServer.ts`.
 */

import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const server = new McpServer({ name: 'growing', version: '1.0.0' });

server.registerTool(
  'shout',
  { description: 'Upper-cases its text', inputSchema: z.object({ text: z.string() }) },
  async ({ text }) => ({ content: [{ type: 'text', text: text.toUpperCase() }] }),
);

server.registerTool('fail', { description: 'Always fails' }, async () => ({
  isError: true,
  content: [{ type: 'text', text: 'it broke on purpose' }],
}));

server.registerTool(
  'slow',
  { description: 'Reports progress, then waits until cancelled (at most 60 s)' },
  async (ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken;
    if (progressToken !== undefined) {
      await ctx.mcpReq.notify({
        method: 'notifications/progress',
        params: { progressToken, progress: 1, total: 2, message: 'started' },
      });
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 60_000);
      ctx.mcpReq.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    return {
      content: [{ type: 'text', text: ctx.mcpReq.signal.aborted ? 'cancelled' : 'finished' }],
    };
  },
);

let grown = false;
server.registerTool('grow', { description: 'Adds the tools twice and thrice' }, async () => {
  if (!grown) {
    grown = true;
    for (const [name, factor] of [
      ['twice', 2],
      ['thrice', 3],
    ] as const) {
      server.registerTool(
        name,
        {
          inputSchema: z.object({ n: z.number() }),
          outputSchema: z.object({ result: z.number() }),
        },
        async ({ n }) => ({
          content: [{ type: 'text', text: String(n * factor) }],
          structuredContent: { result: n * factor },
        }),
      );
    }
  }
  return { content: [{ type: 'text', text: 'grown' }] };
});

await server.connect(new StdioServerTransport());
