/**
 * The raw floor of bench/peers.ts: a bare JSON-RPC loop with no MCP library, answering just
 * enough of both eras for the SDK client (`initialize`, `server/discover`, `tools/list` and
 * `tools/call` of `echo`, `ping`) — what any MCP server pays at least for the transport and
 * JSON. It validates nothing a real server must. Usage: `floor-server.ts stdio` or
 * `floor-server.ts http` (prints `MCP endpoint:  <url>` on stderr once listening).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';

interface Message {
  jsonrpc: '2.0';
  id?: number | string;
  method?: string;
  params?: { protocolVersion?: string; arguments?: { message?: unknown } };
}

const MODERN = '2026-07-28';
const capabilities = { tools: {} };
/** The 2026 era's cache hints on list and discover results (answered alike in 2025: ignored). */
const cacheable = { resultType: 'complete', ttlMs: 0, cacheScope: 'public' };
const tools = [
  {
    name: 'echo',
    description: 'Returns the message unchanged.',
    inputSchema: {
      type: 'object',
      properties: { message: { type: 'string' } },
      required: ['message'],
    },
  },
];

/** The result of one request, or undefined for a notification or an unknown method. */
function resultOf({ method, params }: Message): Record<string, unknown> | undefined {
  switch (method) {
    case 'initialize':
      return {
        protocolVersion: params?.protocolVersion ?? '2025-11-25',
        capabilities,
        serverInfo: { name: 'floor-echo', version: '1.0.0' },
      };
    case 'server/discover':
      return { ...cacheable, supportedVersions: [MODERN], capabilities };
    case 'tools/list':
      return { ...cacheable, tools };
    case 'tools/call':
      return {
        resultType: 'complete',
        content: [{ type: 'text', text: String(params?.arguments?.message) }],
      };
    case 'ping':
      return { resultType: 'complete' };
    default:
      return undefined;
  }
}

/** The answer to one message as a JSON line, or undefined for a notification. */
function answer(message: Message): string | undefined {
  if (message.id === undefined) return undefined;
  const result = resultOf(message);
  return JSON.stringify(
    result
      ? { jsonrpc: '2.0', id: message.id, result }
      : { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } },
  );
}

function serveStdio(): void {
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    const reply = answer(JSON.parse(line) as Message);
    if (reply) process.stdout.write(`${reply}\n`);
  });
}

function serveHttp(): void {
  const http = createServer((req, res) => {
    // No standalone SSE stream, no sessions to end: GET and DELETE are not offered.
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const reply = answer(JSON.parse(Buffer.concat(chunks).toString()) as Message);
      if (!reply) res.writeHead(202).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end(reply);
    });
  });
  http.listen(0, '127.0.0.1', () => {
    const { port } = http.address() as AddressInfo;
    process.stderr.write(`MCP endpoint:  http://127.0.0.1:${port}/mcp\n`);
  });
  process.on('SIGTERM', () => process.exit(0));
}

if (process.argv[2] === 'http') serveHttp();
else serveStdio();
