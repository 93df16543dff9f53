/**
 * The baseline: a bare SDK v2 `McpServer` with the same `echo` tool as plugins/echo.ts, served
 * the way the SDK's own documentation does it. Usage: `sdk-server.ts <mode>`, where mode is
 *
 * - `stdio`: `serveStdio(factory)`, which serves both eras (the first message of the connection
 *   decides: `initialize` pins a 2025 instance, a 2026-07-28 request a modern one);
 * - `http-modern`: `createMcpHandler(factory, { legacy: 'reject' })` behind `toNodeHandler` on
 *   `node:http` (2026-07-28 only, a fresh instance per request, JSON or SSE as the SDK chooses);
 * - `http-legacy`: one `McpServer` per session on a `NodeStreamableHTTPServerTransport`, the
 *   SDK README's sessionful 2025 serving (SSE responses by default).
 *
 * Both HTTP modes listen through ./listen.ts (the SDK's localhost Host/Origin guards in front,
 * `MCP endpoint:  <url>` on stderr once listening).
 */
import { randomUUID } from 'node:crypto';
import type { NodeStreamableHTTPServerTransport as HttpTransport } from '@modelcontextprotocol/node';
import { listen } from './listen.ts';
import { fromWorkspace, workspaceSdk } from './workspace.ts';

const { McpServer, createMcpHandler, serveStdio, z } = await workspaceSdk();
const { NodeStreamableHTTPServerTransport, toNodeHandler } = (await fromWorkspace(
  '@modelcontextprotocol/node',
)) as typeof import('@modelcontextprotocol/node');

function echoServer() {
  const server = new McpServer({ name: 'sdk-echo', version: '1.0.0' });
  server.registerTool(
    'echo',
    {
      description: 'Returns the message unchanged.',
      inputSchema: z.object({ message: z.string() }),
    },
    ({ message }) => ({ content: [{ type: 'text', text: message }] }),
  );
  return server;
}

/** 2026-07-28 only: the SDK's per-request entry. */
function serveModern(): void {
  const handler = createMcpHandler(() => echoServer(), { legacy: 'reject' });
  listen(toNodeHandler(handler), () => handler.close());
}

/** 2025 sessions: one McpServer per session, the SDK README way. */
function serveLegacy(): void {
  const sessions = new Map<string, HttpTransport>();
  listen(
    async (req, res) => {
      const id = req.headers['mcp-session-id'];
      let transport = typeof id === 'string' ? sessions.get(id) : undefined;
      if (!transport) {
        if (id) {
          res.writeHead(404).end();
          return;
        }
        const created: HttpTransport = new NodeStreamableHTTPServerTransport({
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
    },
    async () => {
      await Promise.allSettled([...sessions.values()].map((t) => t.close()));
    },
  );
}

const mode = process.argv[2] ?? 'stdio';
if (mode === 'stdio') serveStdio(() => echoServer());
else if (mode === 'http-modern') serveModern();
else if (mode === 'http-legacy') serveLegacy();
else {
  process.stderr.write(`sdk-server: unknown mode ${mode} (stdio, http-modern, http-legacy)\n`);
  process.exit(2);
}
