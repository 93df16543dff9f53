/**
 * A stdio MCP server (SDK v2) answering with large results, as a search API or a ticket export
 * does: `export_records {count}` returns `count` records as one JSON text (about 100 bytes each:
 * 50,000 make ~5 MB), record `i` being `{id: i, name: "item-i", price: i % 100, tags: [...]}`;
 * `export_log {lines}` returns that many lines of text (`line <i>: ...`).
 */
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

/** Record `i` (tests rebuild it to check a slice). */
function recordAt(i: number) {
  return {
    id: i,
    name: `item-${i}`,
    price: i % 100,
    tags: ['alpha', 'beta'],
    note: 'x'.repeat(30),
  };
}

const server = new McpServer({ name: 'upstream-records', version: '1.0.0' });
server.registerTool(
  'export_records',
  {
    description: 'Exports records as JSON',
    inputSchema: z.object({ count: z.number().int().min(0) }),
  },
  ({ count }) => {
    const records = Array.from({ length: count }, (_, i) => recordAt(i));
    return { content: [{ type: 'text' as const, text: JSON.stringify(records) }] };
  },
);
server.registerTool(
  'export_log',
  {
    description: 'Exports a log as text',
    inputSchema: z.object({ lines: z.number().int().min(0) }),
  },
  ({ lines }) => {
    const text = Array.from(
      { length: lines },
      (_, i) => `line ${i}: ${i % 7 === 0 ? 'ERROR' : 'ok'}`,
    ).join('\n');
    return { content: [{ type: 'text' as const, text }] };
  },
);
await server.connect(new StdioServerTransport());
