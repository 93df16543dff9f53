/**
 * A peer of bench/peers.ts: npm `tmcp` with its zod adapter and the same `echo` tool, over
 * `@tmcp/transport-stdio` or `@tmcp/transport-http` (both eras: `initialize` sessions and
 * 2026-07-28 per-request calls), installed in bench/node_modules only. Usage: `tmcp-server.ts
 * stdio` or `tmcp-server.ts http` (prints `MCP endpoint:  <url>` on stderr once listening).
 */
import { z } from 'zod';
import { listenFetch } from './listen.ts';

// Imported through variables so the repository type-checks before bench/node_modules exists.
const [TMCP, ADAPTER, HTTP, STDIO] = [
  'tmcp',
  '@tmcp/adapter-zod',
  '@tmcp/transport-http',
  '@tmcp/transport-stdio',
];
interface TmcpServer {
  tool(
    tool: { name: string; description: string; schema: unknown },
    run: (args: { message: string }) => unknown,
  ): void;
}
const { McpServer } = (await import(TMCP)) as {
  McpServer: new (info: object, options: object) => TmcpServer;
};
const { ZodJsonSchemaAdapter } = (await import(ADAPTER)) as {
  ZodJsonSchemaAdapter: new () => object;
};

const server = new McpServer(
  { name: 'tmcp-echo', version: '1.0.0', description: 'echo' },
  { adapter: new ZodJsonSchemaAdapter(), capabilities: { tools: {} } },
);
server.tool(
  {
    name: 'echo',
    description: 'Returns the message unchanged.',
    schema: z.object({ message: z.string() }),
  },
  ({ message }) => ({ content: [{ type: 'text', text: message }] }),
);

if (process.argv[2] === 'http') {
  const { HttpTransport } = (await import(HTTP)) as {
    HttpTransport: new (
      server: TmcpServer,
      options: { path: string },
    ) => { respond(request: Request): Promise<Response | null> };
  };
  const transport = new HttpTransport(server, { path: '/mcp' });
  listenFetch(
    async (request) => (await transport.respond(request)) ?? new Response(null, { status: 404 }),
  );
} else {
  const { StdioTransport } = (await import(STDIO)) as {
    StdioTransport: new (server: TmcpServer) => { listen(): void };
  };
  new StdioTransport(server).listen();
}
