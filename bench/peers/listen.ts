/**
 * Serving a peer of the benchmarks on `node:http`: at /mcp on a free loopback port behind the
 * SDK's localhost Host and Origin guards (as the SDK's node:http recipe does; mcp-factory checks
 * Host too), printing `MCP endpoint:  <url>` on stderr once listening, like mcp-factory.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fromWorkspace } from './workspace.ts';

const { localhostHostValidation, localhostOriginValidation, toNodeHandler } = (await fromWorkspace(
  '@modelcontextprotocol/node',
)) as typeof import('@modelcontextprotocol/node');

export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** Serves `handle` at /mcp; `close` runs on SIGTERM before the process exits. */
export function listen(handle: NodeHandler, close: () => Promise<void>): void {
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

/**
 * Serves a Web-standard `(Request) => Response` handler (tmcp, mcp-handler) through the SDK's
 * own Node adapter, the one the bare SDK peer runs behind: the frameworks differ, not the glue.
 */
export function listenFetch(fetch: (request: Request) => Promise<Response>): void {
  listen(toNodeHandler({ fetch }), async () => {});
}
