/**
 * A standalone MCP server with the framework, no plugins: load config, create the server, add a
 * tool, run. Settings come from the MCP_* environment (and a YAML file, if you name one):
 *
 *   node --import tsx examples/standalone.ts                                  # stdio
 *   MCP_TRANSPORT=http MCP_PORT=8000 node --import tsx examples/standalone.ts  # http://127.0.0.1:8000/mcp
 */
import { createServer, loadConfig } from '@mcpbox/framework';
import { z } from 'zod';

const config = loadConfig({ file: process.argv[2] });
const server = createServer(config);

server.registerTool(
  'hello',
  { description: 'Says hello.', inputSchema: { name: z.string() } },
  ({ name }) => `Hello, ${name}!`,
);

const url = await server.start(); // stdio unless the config says http
if (url) console.error(`MCP endpoint: ${url}`);
