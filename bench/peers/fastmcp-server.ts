/**
 * The third-party peer: the npm `fastmcp` framework (installed in bench/node_modules only) with
 * the same `echo` tool. Usage: `fastmcp-server.ts stdio` or `fastmcp-server.ts http` (prints
 * `MCP endpoint:  <url>` on stderr once listening).
 */
import { createServer } from 'node:net';
import { z } from 'zod';

// Imported through a variable so the repository type-checks before bench/node_modules exists.
const FASTMCP = 'fastmcp';
interface FastMcpLike {
  addTool(tool: {
    name: string;
    description: string;
    parameters: unknown;
    execute: (args: { message: string }) => Promise<string>;
  }): void;
  start(options: unknown): Promise<void>;
}
const { FastMCP } = (await import(FASTMCP)) as {
  FastMCP: new (options: { name: string; version: `${number}.${number}.${number}` }) => FastMcpLike;
};

/**
 * fastmcp does not report the port it bound, so find a free one first. Not test-utils'
 * `freePort`: this peer imports nothing of the workspace's, and it rejects when listening fails.
 */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

const server = new FastMCP({ name: 'fastmcp-echo', version: '1.0.0' });
server.addTool({
  name: 'echo',
  description: 'Returns the message unchanged.',
  parameters: z.object({ message: z.string() }),
  execute: async ({ message }) => message,
});

if (process.argv[2] === 'http') {
  const port = await freePort();
  await server.start({ transportType: 'httpStream', httpStream: { port, host: '127.0.0.1' } });
  process.stderr.write(`MCP endpoint:  http://127.0.0.1:${port}/mcp\n`);
  process.on('SIGTERM', () => process.exit(0));
} else {
  await server.start({ transportType: 'stdio' });
}
