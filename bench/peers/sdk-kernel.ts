/**
 * The floor under ipybox's cell overhead: the smallest MCP server that runs a cell, a bare SDK
 * v2 `McpServer` over stdio (`serveStdio`, both eras) whose one tool, `execute_ipython_cell`,
 * awaits `KernelClient.execute(code)` and returns its text. No workspace, approvals, budget,
 * streaming or framework: what any stdio MCP tool wrapping a kernel pays, which bench/ipybox.ts
 * sets beside ipybox. Usage: `sdk-kernel.ts <workspace>` (the kernel's working directory).
 */
import { join } from 'node:path';
import { KernelClient } from '@mcpbox/ipybox';
import { workspaceSdk } from './workspace.ts';

const { McpServer, serveStdio, z } = await workspaceSdk();

const workspace = process.argv[2];
if (!workspace) {
  process.stderr.write('usage: sdk-kernel.ts <workspace>\n');
  process.exit(2);
}
const kernel = new KernelClient({ cwd: workspace, imagesDir: join(workspace, 'images') });

const handle = serveStdio(() => {
  const server = new McpServer({ name: 'sdk-kernel', version: '1.0.0' });
  server.registerTool(
    'execute_ipython_cell',
    { description: 'Runs Python in the kernel.', inputSchema: z.object({ code: z.string() }) },
    async ({ code }) => ({ content: [{ type: 'text', text: (await kernel.execute(code)).text }] }),
  );
  return server;
});

// The client closing stdin ends the server, and the kernel with it.
process.stdin.once('end', async () => {
  await Promise.allSettled([handle.close(), kernel.close()]);
  process.exit(0);
});
