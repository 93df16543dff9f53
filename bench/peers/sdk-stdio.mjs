// The cold-start baseline of bench/startup.ts: a bare SDK v2 McpServer with the same `echo` tool
// as plugins/echo.ts, over stdio with `serveStdio` (both eras: the first message decides), as
// plain JavaScript, so nothing is compiled at start-up — what an installed server runs.
// The SDK and zod come from the workspace's node_modules, the copies mcp-factory runs on (a bare
// import here would find bench/node_modules first, where fastmcp brings its own copies).
import { readFileSync } from 'node:fs';

const WORKSPACE = new URL('../../node_modules/', import.meta.url);

/** Imports a workspace package's ESM entry (`import` condition of its `exports` map). */
async function fromWorkspace(name, subpath = '.') {
  const dir = new URL(`${name}/`, WORKSPACE);
  const { exports } = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8'));
  let entry = exports[subpath];
  while (entry && typeof entry === 'object') entry = entry.import ?? entry.default;
  return import(new URL(entry, dir).href);
}

const [{ McpServer }, { serveStdio }, { z }] = await Promise.all([
  fromWorkspace('@modelcontextprotocol/server'),
  fromWorkspace('@modelcontextprotocol/server', './stdio'),
  fromWorkspace('zod'),
]);

serveStdio(() => {
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
});
