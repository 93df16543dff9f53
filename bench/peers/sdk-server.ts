/**
 * The baseline: a bare SDK `McpServer` with the same `echo` tool as plugins/echo.ts, written the
 * way the SDK's README does it (one McpServer per Streamable HTTP session, node:http, default
 * SSE responses). Usage: `sdk-server.ts stdio` or `sdk-server.ts http` (prints
 * `MCP endpoint:  <url>` on stderr, like mcp-factory).
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

function echoServer(): McpServer {
  const server = new McpServer({ name: 'sdk-echo', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Returns the message unchanged.', inputSchema: { message: z.string() } },
    ({ message }) => ({ content: [{ type: 'text', text: message }] }),
  );
  return server;
}

if (process.argv[2] === 'http') {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer(async (req, res) => {
    if (!req.url?.startsWith('/mcp')) {
      res.writeHead(404).end();
      return;
    }
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (!transport) {
      if (id) {
        res.writeHead(404).end();
        return;
      }
      const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId): void => {
          sessions.set(sessionId, created);
        },
      });
      created.onclose = () => {
        if (created.sessionId) sessions.delete(created.sessionId);
      };
      await echoServer().connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res);
  });
  http.listen(0, '127.0.0.1', () => {
    const { port } = http.address() as AddressInfo;
    process.stderr.write(`MCP endpoint:  http://127.0.0.1:${port}/mcp\n`);
  });
  process.on('SIGTERM', () => process.exit(0));
} else {
  await echoServer().connect(new StdioServerTransport());
}
