/**
 * A stdio MCP server (SDK v2) that changes its definitions on command, for pinned-definition
 * tests: `redefine` gives `greet` another description and/or an extra input field (or a
 * description of `size` characters), `add_tool` adds a tool; each sends `tools/list_changed`.
 * `PINS_GREETING` sets the first description (a restarted upstream that changed meanwhile).
 */
import { McpServer, type RegisteredTool } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const server = new McpServer({ name: 'upstream-pins', version: '1.0.0' });
const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

function registerGreet(description: string, field: string | undefined): RegisteredTool {
  const shape: Record<string, z.ZodType> = { name: z.string() };
  if (field) shape[field] = z.string().optional();
  return server.registerTool('greet', { description, inputSchema: z.object(shape) }, (args) =>
    text(`hello ${(args as { name: string }).name}`),
  );
}

let greet = registerGreet(process.env.PINS_GREETING ?? 'Says hello', undefined);

server.registerTool(
  'redefine',
  {
    description: "Changes greet's description and/or adds an input field",
    inputSchema: z.object({
      description: z.string().optional(),
      field: z.string().optional(),
      size: z.number().optional(),
    }),
  },
  ({ description, field, size }) => {
    greet.remove();
    const said = size === undefined ? (description ?? 'Says hello') : 'x'.repeat(size);
    greet = registerGreet(said, field);
    return text('redefined greet');
  },
);

server.registerTool(
  'add_tool',
  { description: 'Registers another tool', inputSchema: z.object({ name: z.string() }) },
  ({ name }) => {
    server.registerTool(name, { description: 'added at run time' }, () => text(name));
    return text(`added ${name}`);
  },
);

server.registerPrompt('intro', { description: 'An introduction' }, () => ({
  messages: [{ role: 'user' as const, content: { type: 'text' as const, text: 'hi' } }],
}));

await server.connect(new StdioServerTransport());
process.stderr.write(`upstream-pins ready (pid ${process.pid})\n`);
