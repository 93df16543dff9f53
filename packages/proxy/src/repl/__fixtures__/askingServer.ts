/**
 * A tiny stdio MCP server for the mcp-client tests whose tools make the client ask questions.
 * `guarded` asks for approval with the form ipybox's `--approval elicit` sends (one required
 * boolean `approve`, default true; see approvalQuestion in packages/ipybox) and reports what came
 * back; `configure` elicits a required integer with a default; `login` has one required
 * parameter, `password`, that `call login` asks for. Run as `node --import tsx askingServer.ts`.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const server = new McpServer({ name: 'asking', version: '1.0.0' });

server.registerTool('guarded', { description: 'Runs only when the user approves' }, async () => {
  const answer = await server.server.elicitInput({
    message: "Code running in the ipybox kernel wants to call the tool 'rm'. Allow this call?",
    requestedSchema: {
      type: 'object',
      properties: {
        approve: {
          type: 'boolean',
          title: 'Approve',
          description: 'Run files.rm',
          default: true,
        },
      },
      required: ['approve'],
    },
  });
  return { content: [{ type: 'text', text: `answer: ${JSON.stringify(answer)}` }] };
});

server.registerTool('configure', { description: 'Asks how many retries' }, async () => {
  const answer = await server.server.elicitInput({
    message: 'How many retries?',
    requestedSchema: {
      type: 'object',
      properties: { retries: { type: 'integer', default: 3 } },
      required: ['retries'],
    },
  });
  return { content: [{ type: 'text', text: `answer: ${JSON.stringify(answer)}` }] };
});

server.registerTool(
  'login',
  { description: 'Takes a password', inputSchema: z.object({ password: z.string() }) },
  async ({ password }) => ({
    content: [{ type: 'text', text: `logged in (${password.length} characters)` }],
  }),
);

await server.connect(new StdioServerTransport());
