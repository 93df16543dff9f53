/**
 * The floor under a mirrored call: the smallest stdio MCP server that relays a tool to an
 * upstream one, a bare SDK v2 `McpServer` (`serveStdio`, both eras) whose `echo` tool awaits an
 * SDK v2 `Client`'s `callTool` on the upstream and returns its result unchanged. No catalog,
 * schema pass-through, tool-call log, gate, redaction or era negotiation: what any SDK-built
 * gateway pays for the extra hop, which bench/proxy.ts sets beside mcp-proxy.
 * Usage: `sdk-relay.ts <upstream command> [args...]` (the upstream is started over stdio).
 */
import { fromWorkspace, workspaceSdk } from './workspace.ts';

const { McpServer, serveStdio, z } = await workspaceSdk();
const [{ Client }, { StdioClientTransport }] = (await Promise.all([
  fromWorkspace('@modelcontextprotocol/client'),
  fromWorkspace('@modelcontextprotocol/client', './stdio'),
])) as [
  typeof import('@modelcontextprotocol/client'),
  typeof import('@modelcontextprotocol/client/stdio'),
];

const [command, ...args] = process.argv.slice(2);
if (!command) {
  process.stderr.write('usage: sdk-relay.ts <upstream command> [args...]\n');
  process.exit(2);
}
const upstream = new Client({ name: 'sdk-relay', version: '1.0.0' });
await upstream.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));

const handle = serveStdio(() => {
  const server = new McpServer({ name: 'sdk-relay', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echoes through the upstream.', inputSchema: z.object({ message: z.string() }) },
    async (input) => upstream.callTool({ name: 'echo', arguments: input }),
  );
  return server;
});

// The client closing stdin ends the relay, and the upstream with it.
process.stdin.once('end', async () => {
  await Promise.allSettled([handle.close(), upstream.close()]);
  process.exit(0);
});
