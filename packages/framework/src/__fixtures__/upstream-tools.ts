/**
 * A small stdio MCP server for upstream-client tests: tools that report this process, sleep with
 * progress and notice cancellation, exit mid-call, spawn a grandchild, and add a tool at run time.
 *
 * `UPSTREAM_STUBBORN=1` makes it ignore SIGTERM and the end of stdin, like a badly written server
 * that only SIGKILL ends.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const server = new McpServer({ name: 'upstream-tools', version: '1.0.0' });
let cancellations = 0;

const text = (value: unknown) => ({
  content: [
    { type: 'text' as const, text: typeof value === 'string' ? value : JSON.stringify(value) },
  ],
});

/** Field 5 of /proc/self/stat is the process group id (the name in field 2 has no spaces here). */
const pgid = () => Number(readFileSync('/proc/self/stat', 'utf8').split(' ')[4]);

server.registerTool('whoami', { description: 'pid, parent pid, process group, argv' }, () =>
  text({ pid: process.pid, ppid: process.ppid, pgid: pgid(), argv: process.argv.slice(2) }),
);

server.registerTool(
  'env',
  {
    description: 'The value of one environment variable',
    inputSchema: z.object({ name: z.string() }),
  },
  ({ name }) => text({ [name]: process.env[name] ?? null }),
);

server.registerTool(
  'sleep',
  {
    description: 'Waits, reporting progress every 50 ms; counts cancellations',
    inputSchema: z.object({ ms: z.number() }),
  },
  async ({ ms }, ctx) => {
    const token = ctx.mcpReq._meta?.progressToken;
    const started = Date.now();
    while (Date.now() - started < ms) {
      if (ctx.mcpReq.signal.aborted) {
        cancellations += 1;
        return text('cancelled');
      }
      if (token !== undefined) {
        await ctx.mcpReq.notify({
          method: 'notifications/progress',
          params: { progressToken: token, progress: Date.now() - started, total: ms },
        });
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return text('slept');
  },
);

server.registerTool('fail', { description: 'Answers with an isError result' }, () => ({
  content: [{ type: 'text' as const, text: 'it failed on purpose' }],
  structuredContent: { reason: 'on purpose' },
  isError: true,
}));

server.registerTool('cancellations', { description: 'How many sleeps were cancelled' }, () =>
  text(String(cancellations)),
);

server.registerTool(
  'exit',
  {
    description: 'Exits the process without answering',
    inputSchema: z.object({ code: z.number() }),
  },
  ({ code }) => process.exit(code),
);

server.registerTool(
  'spawn_grandchild',
  { description: 'Starts `sleep 1000`, returns its pid' },
  () => {
    const child = spawn('sleep', ['1000'], { stdio: 'ignore' });
    return text({ pid: child.pid });
  },
);

server.registerTool(
  'add_tool',
  {
    description: 'Registers another tool (sends tools/list_changed)',
    inputSchema: z.object({ name: z.string() }),
  },
  ({ name }) => {
    server.registerTool(name, { description: 'added at run time' }, () => text(name));
    return text(`added ${name}`);
  },
);

// Resources come in pages of two (cursor = next index), to test that clients follow cursors.
const resources = Array.from({ length: 9 }, (_, i) => ({ uri: `test://r/${i}`, name: `r${i}` }));
server.server.registerCapabilities({ resources: {} });
server.server.setRequestHandler('resources/list', ({ params }) => {
  const start = Number(params?.cursor ?? 0);
  const next = start + 2 < resources.length ? String(start + 2) : undefined;
  return { resources: resources.slice(start, start + 2), ...(next ? { nextCursor: next } : {}) };
});
server.server.setRequestHandler('resources/templates/list', () => ({
  resourceTemplates: [{ uriTemplate: 'test://t/{id}', name: 't', 'x-extra': { kept: true } }],
}));

if (process.env.UPSTREAM_STUBBORN === '1') {
  process.on('SIGTERM', () => process.stderr.write('ignoring SIGTERM\n'));
  setInterval(() => {}, 60_000);
}

await server.connect(new StdioServerTransport());
process.stderr.write(`upstream-tools ready (pid ${process.pid})\n`);
