/**
 * The raw floor of bench/peers.ts: a bare JSON-RPC loop with no MCP library, answering just
 * enough of both eras for the SDK client (`initialize`, `server/discover`, `tools/list` and
 * `tools/call` of `echo`, `ping`) — what any MCP server pays at least for the transport and
 * JSON. It validates nothing a real server must. Usage: `floor-server.ts stdio` or
 * `floor-server.ts http` (prints `MCP endpoint:  <url>` on stderr once listening).
 *
 * `floor-server.ts stdio --kernel <workspace>` also offers `execute_ipython_cell`, which awaits
 * `KernelClient.execute(code)` in a kernel working in `<workspace>`: the raw floor under
 * bench/ipybox.ts's cell, what a stdio tool over a kernel pays with no MCP library at all.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { KernelClient } from '@mcpbox/ipybox';

interface Message {
  jsonrpc: '2.0';
  id?: number | string;
  method?: string;
  params?: {
    protocolVersion?: string;
    name?: string;
    arguments?: { message?: unknown; code?: unknown };
  };
}

const workspace = process.argv[3] === '--kernel' ? process.argv[4] : undefined;
/** The kernel behind `execute_ipython_cell`, in kernel mode only (loaded only then). */
const kernel: KernelClient | undefined = workspace
  ? new (await import('@mcpbox/ipybox')).KernelClient({
      cwd: workspace,
      imagesDir: join(workspace, 'images'),
    })
  : undefined;

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
  ...(kernel
    ? [
        {
          name: 'execute_ipython_cell',
          description: 'Runs Python in the kernel.',
          inputSchema: {
            type: 'object',
            properties: { code: { type: 'string' } },
            required: ['code'],
          },
        },
      ]
    : []),
];

const toolResult = (text: string, isError = false) => ({
  resultType: 'complete',
  content: [{ type: 'text', text }],
  ...(isError && { isError }),
});

/** A tool's result; a promise only for a cell (the echo path stays synchronous). */
function callTool(params: Message['params']): Record<string, unknown> | Promise<object> {
  if (kernel && params?.name === 'execute_ipython_cell') {
    return kernel.execute(String(params.arguments?.code)).then(
      (result) => toolResult(result.text),
      (error: Error) => toolResult(error.message, true),
    );
  }
  return toolResult(String(params?.arguments?.message));
}

/** The result of one request, or undefined for a notification or an unknown method. */
function resultOf({ method, params }: Message): object | Promise<object> | undefined {
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
      return callTool(params);
    case 'ping':
      return { resultType: 'complete' };
    default:
      return undefined;
  }
}

/** The answer to one message as a JSON line, or undefined for a notification. */
function answer(message: Message): string | Promise<string> | undefined {
  const { id } = message;
  if (id === undefined) return undefined;
  const line = (result: object | undefined) =>
    JSON.stringify(
      result
        ? { jsonrpc: '2.0', id, result }
        : { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } },
    );
  const result = resultOf(message);
  return result instanceof Promise ? result.then(line) : line(result);
}

/** Writes `reply` (a line, or the promise of one) with `write`, at once when it is ready. */
function send(reply: string | Promise<string> | undefined, write: (line: string) => void): void {
  if (typeof reply === 'string') write(reply);
  else if (reply) void reply.then(write);
}

function serveStdio(): void {
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    send(answer(JSON.parse(line) as Message), (reply) => process.stdout.write(`${reply}\n`));
  });
  // The client closing stdin ends the server, and the kernel with it.
  process.stdin.once('end', async () => {
    await kernel?.close();
    process.exit(0);
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
      else
        send(reply, (line) => res.writeHead(200, { 'content-type': 'application/json' }).end(line));
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
