/**
 * The baseline: a bare SDK `McpServer` with the same `echo` tool as plugins/echo.ts, written the
 * way the SDK's README does it (one McpServer per Streamable HTTP session, node:http, default
 * SSE responses). Usage: `sdk-server.ts stdio` or `sdk-server.ts http` (prints
 * `MCP endpoint:  <url>` on stderr, like mcp-factory).
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StreamableHTTPServerTransport as HttpTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

// The SDK and zod come from the workspace's node_modules, the copies mcp-factory runs on. A bare
// `import` here would resolve bench/node_modules first (fastmcp's install, with another zod),
// and the baseline would measure different dependencies, not a different server: zod 4.x builds
// a failed safeParse's error lazily, zod 3.25's `zod/v4` at once, and the SDK fails two
// safeParses on every incoming request.
const WORKSPACE = new URL('../../node_modules/', import.meta.url);
const fromWorkspace = (file: string) => import(new URL(file, WORKSPACE).href);
const { McpServer } = (await fromWorkspace(
  '@modelcontextprotocol/sdk/dist/esm/server/mcp.js',
)) as typeof import('@modelcontextprotocol/sdk/server/mcp.js');
const { StdioServerTransport } = (await fromWorkspace(
  '@modelcontextprotocol/sdk/dist/esm/server/stdio.js',
)) as typeof import('@modelcontextprotocol/sdk/server/stdio.js');
const { StreamableHTTPServerTransport } = (await fromWorkspace(
  '@modelcontextprotocol/sdk/dist/esm/server/streamableHttp.js',
)) as typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js');
const { z } = (await fromWorkspace('zod/index.js')) as typeof import('zod');

function echoServer() {
  const server = new McpServer({ name: 'sdk-echo', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Returns the message unchanged.', inputSchema: { message: z.string() } },
    ({ message }) => ({ content: [{ type: 'text', text: message }] }),
  );
  return server;
}

if (process.argv[2] === 'http') {
  const sessions = new Map<string, HttpTransport>();
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
      const created: HttpTransport = new StreamableHTTPServerTransport({
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
