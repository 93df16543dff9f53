/**
 * synthetic200 — a catalog of 200 realistic tools across 20 services (issue tracker, mail,
 * calendar, payments, cloud, …), for measuring what a large catalog costs a client and for
 * testing search over it (packages/framework/src/catalog/search.test.ts; bench/codemode.ts).
 *
 * The tools are data, in tools.json beside this file: per service, each tool's name, title,
 * description and parameters (`"name": [type, description]`, in order; `name?` is optional;
 * type is string, integer, number, boolean or string[]). They do nothing real: each answers
 * with its name and the arguments it got (as text and as structured content), so calls are
 * cheap and their results are predictable.
 *
 * Try it: `mcp-factory -p synthetic200`.
 */
import { readFileSync } from 'node:fs';
import type { JsonSchemaObject, PluginServer } from '@mcpbox/framework';

export const description =
  '200 synthetic tools over 20 services, for search and code-mode benchmarks.';

interface ToolSpec {
  name: string;
  title: string;
  description: string;
  params: Record<string, readonly [type: string, description: string]>;
}

/** Every tool spec, service after service, for tests that check the catalog against its source. */
export const TOOL_SPECS: readonly ToolSpec[] = Object.values(
  JSON.parse(readFileSync(new URL('./tools.json', import.meta.url), 'utf8')) as Record<
    string,
    ToolSpec[]
  >,
).flat();

/** A tool's parameters as a JSON Schema object (see tools.json above). */
function inputSchema(params: ToolSpec['params']): JsonSchemaObject {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const [key, [type, description]] of Object.entries(params)) {
    const optional = key.endsWith('?');
    const name = optional ? key.slice(0, -1) : key;
    properties[name] =
      type === 'string[]'
        ? { type: 'array', items: { type: 'string' }, description }
        : { type, description };
    if (!optional) required.push(name);
  }
  return { type: 'object', properties, required, additionalProperties: false };
}

export function register(server: PluginServer): void {
  for (const { name, title, description: text, params } of TOOL_SPECS) {
    server.registerTool(
      name,
      { title, description: text, inputSchema: inputSchema(params) },
      (args: Record<string, unknown>) => ({
        content: [{ type: 'text', text: `${name}: ${JSON.stringify(args)}` }],
        structuredContent: { tool: name, arguments: args },
      }),
    );
  }
}
