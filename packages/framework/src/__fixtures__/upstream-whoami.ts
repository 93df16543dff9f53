/**
 * An HTTP MCP server (SDK v2, either era) that knows its users by bearer token, as a service
 * with per-user API tokens does: `UPSTREAM_TOKENS` is a JSON object of token → user name. A
 * request without a known `Authorization: Bearer <token>` is answered 401. Tools: `whoami` (the
 * user the token belongs to) and `status`, which — as careless servers do — also shows the
 * token it was called with, bare. Prints `{"port":N}` on stdout once listening on 127.0.0.1.
 */
import { createServer } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';

const users = JSON.parse(process.env.UPSTREAM_TOKENS ?? '{}') as Record<string, string>;

const handler = createMcpHandler(({ authInfo }) => {
  const server = new McpServer({ name: 'upstream-whoami', version: '1.0.0' });
  const user = String(authInfo?.clientId);
  server.registerTool('whoami', { description: 'Who the upstream thinks you are' }, () => ({
    content: [{ type: 'text' as const, text: `you are ${user}` }],
  }));
  server.registerTool('status', { description: 'The connection, token included' }, () => ({
    content: [{ type: 'text' as const, text: `${user} signed in with ${authInfo?.token}` }],
  }));
  return server;
});
const node = toNodeHandler(handler);

const http = createServer((req, res) => {
  const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
  const user = token === undefined ? undefined : users[token];
  if (token === undefined || user === undefined) {
    res.writeHead(401, { 'content-type': 'text/plain' }).end('unknown token');
    return;
  }
  // Pass-through auth for the handler: the factory reads who is calling from it.
  Object.assign(req, { auth: { token, clientId: user, scopes: [] } });
  void node(req, res);
});
http.listen(0, '127.0.0.1', () => {
  const address = http.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.stdout.write(`${JSON.stringify({ port })}\n`);
});
