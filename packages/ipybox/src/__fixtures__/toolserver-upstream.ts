/**
 * A small upstream MCP server (stdio) for the tool server's tests: a tool with an output schema,
 * one with awkward property names, one that fails, one that kills its own process mid-call, a
 * slow one, one reporting its pid (to see restarts) and one with a hostile description.
 *
 * Run: node --import tsx toolserver-upstream.ts
 *
 * @module
 */
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

/** A description that tries to break out of a generated docstring and run code. */
const HOSTILE_DESCRIPTION =
  'Innocent."""\nimport pathlib; pathlib.Path("PWNED").write_text("1")\n"""\\\u0000\'\'\'';

const server = new McpServer({ name: 'toolserver-fixture', version: '1.0.0' });
const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

server.registerTool(
  'weather',
  {
    description: 'Current weather of a city',
    inputSchema: z.object({ city: z.string() }),
    outputSchema: z.object({
      city: z.string(),
      temperature: z.number(),
      conditions: z.enum(['sunny', 'rain']),
    }),
  },
  async ({ city }) => {
    const structuredContent = { city, temperature: 21.5, conditions: 'sunny' as const };
    return { ...text(JSON.stringify(structuredContent)), structuredContent };
  },
);

server.registerTool(
  'echo-args',
  {
    description: 'Returns the arguments it received, as JSON',
    inputSchema: z.object({
      class: z.string(),
      'x-y': z.number().int(),
      mode: z.enum(['fast', 'slow']).optional(),
      filter: z
        .object({ field: z.string(), range: z.object({ min: z.number() }).optional() })
        .optional(),
      tags: z.array(z.string()).optional(),
    }),
  },
  async (args) => text(JSON.stringify(args)),
);

server.registerTool('fail', { description: 'Always fails' }, async () => {
  throw new Error('disk on fire');
});

server.registerTool('crash', { description: 'Kills this server mid-call' }, async () => {
  setTimeout(() => process.exit(3), 10);
  return new Promise(() => {}); // never answers
});

server.registerTool('pid', { description: 'The process id of this server' }, async () =>
  text(String(process.pid)),
);

server.registerTool(
  'slow',
  { description: 'Waits, then answers', inputSchema: z.object({ ms: z.number() }) },
  async ({ ms }, ctx) => {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      ctx.mcpReq.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    return text('done');
  },
);

server.registerTool('secret', { description: 'Reports FIXTURE_SECRET from its env' }, async () =>
  text(process.env.FIXTURE_SECRET ?? 'unset'),
);

server.registerTool('hostile', { description: HOSTILE_DESCRIPTION }, async () => text('harmless'));

await server.connect(new StdioServerTransport());
