/**
 * A peer of bench/peers.ts: the npm `mcp-use` framework's server (`MCPServer`, a Hono app that
 * builds an SDK v2 server per request, both eras statelessly) with the same `echo` tool,
 * installed in bench/node_modules only. HTTP only (it serves no stdio). Prints `MCP endpoint:
 * <url>` on stderr once listening on its own Node listener (`listen(0)`, Host guard included).
 */
import { z } from 'zod';

// mcp-use reports usage to a third-party analytics service (and keeps an id in ./.mcp-use/)
// unless told not to: a benchmark run sends nothing anywhere.
process.env.MCP_USE_ANONYMIZED_TELEMETRY = 'false';

// Imported through a variable so the repository type-checks before bench/node_modules exists.
const MCP_USE = 'mcp-use';
interface McpUseServer {
  tool(
    tool: { name: string; description: string; inputSchema: unknown },
    run: (args: { message: string }) => unknown,
  ): void;
  listen(port: number, options: { host: string }): Promise<{ url: string }>;
  close(): Promise<void>;
}
const { MCPServer } = (await import(MCP_USE)) as {
  MCPServer: new (config: { name: string; version: string }) => McpUseServer;
};

const server = new MCPServer({ name: 'mcp-use-echo', version: '1.0.0' });
server.tool(
  {
    name: 'echo',
    description: 'Returns the message unchanged.',
    inputSchema: z.object({ message: z.string() }),
  },
  ({ message }) => ({ content: [{ type: 'text', text: message }] }),
);
const { url } = await server.listen(0, { host: '127.0.0.1' });
process.stderr.write(`MCP endpoint:  ${url}\n`);
process.on('SIGTERM', () => void server.close().finally(() => process.exit(0)));
