/**
 * A tiny stdio MCP server for the mcp-client tests: four tools, and calling `grow` registers two
 * more, so the server sends `notifications/tools/list_changed` on demand. `fail` answers with an
 * isError result; `slow` reports progress and then waits to be cancelled. Run as `node --import tsx growingServer.ts`.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'growing', version: '1.0.0' });

server.registerTool(
  'shout',
  { description: 'Upper-cases its text', inputSchema: { text: z.string() } },
  async ({ text }) => ({ content: [{ type: 'text', text: text.toUpperCase() }] }),
);

server.registerTool('fail', { description: 'Always fails' }, async () => ({
  isError: true,
  content: [{ type: 'text', text: 'it broke on purpose' }],
}));

server.registerTool(
  'slow',
  { description: 'Reports progress, then waits until cancelled (at most 60 s)' },
  async (extra) => {
    const progressToken = extra._meta?.progressToken;
    if (progressToken !== undefined) {
      await extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken, progress: 1, total: 2, message: 'started' },
      });
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 60_000);
      extra.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    return { content: [{ type: 'text', text: extra.signal.aborted ? 'cancelled' : 'finished' }] };
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
        { inputSchema: { n: z.number() }, outputSchema: { result: z.number() } },
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
