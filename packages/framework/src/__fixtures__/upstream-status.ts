/**
 * A stdio MCP server standing for a service client configured with a key in its `env`: its
 * `status` tool reports the connection and, as careless servers do, the key it uses, bare.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';

const server = new McpServer({ name: 'upstream-status', version: '1.0.0' });
server.registerTool('status', { description: 'The connection to the service' }, () => ({
  content: [
    {
      type: 'text' as const,
      text: `connected to https://api.example.com, signed requests with ${process.env.SERVICE_API_KEY ?? '(none)'} since start`,
    },
  ],
}));
await server.connect(new StdioServerTransport());
