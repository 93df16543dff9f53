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
 * Both HTTP modes put the SDK's localhost Host/Origin guards in front, as the SDK's node:http
 * recipe does (mcp-factory checks Host too), and print `MCP endpoint:  <url>` on stderr once
 * listening, like mcp-factory.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NodeStreamableHTTPServerTransport as HttpTransport } from '@modelcontextprotocol/node';
import { fromWorkspace, workspaceSdk } from './workspace.ts';

const { McpServer, createMcpHandler, serveStdio, z } = await workspaceSdk();
const {
  NodeStreamableHTTPServerTransport,
  localhostHostValidation,
  localhostOriginValidation,
  toNodeHandler,
} = (await fromWorkspace(
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

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** Serves `handle` at /mcp on a free loopback port behind the Host and Origin guards. */
function listen(handle: NodeHandler, close: () => Promise<void>): void {
  const validateHost = localhostHostValidation();
  const validateOrigin = localhostOriginValidation();
  const http = createServer((req, res) => {
    if (!req.url?.startsWith('/mcp')) {
      res.writeHead(404).end();
      return;
    }
    if (!validateHost(req, res) || !validateOrigin(req, res)) return;
    void handle(req, res);
  });
  http.listen(0, '127.0.0.1', () => {
    const { port } = http.address() as AddressInfo;
    process.stderr.write(`MCP endpoint:  http://127.0.0.1:${port}/mcp\n`);
  });
  process.on('SIGTERM', () => void close().finally(() => process.exit(0)));
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
