/**
 * `search_tools`: ranked search over the tools code may call — the catalog's and those of the
 * servers registered with `register_mcp_server`, ranked together (`toolSearch.ts`, the
 * framework's index) — each with its Python import line.
 * `detail` chooses how much: `name` (import lines), `summary` (plus the description's first
 * line), `full` (plus `run`'s signature and docstring as the generated module declares them).
 *
 * A caller finds only the catalog tools it may reach — its view and the policy decide, as they
 * decide its `tools/list` — so what it searches is what its calls from code may run.
 *
 * @module
 */
import type { PluginServer } from '@mcpbox/framework';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { renderRunDeclaration } from '../mcptools/renderPackage.ts';
import type { CatalogModules } from './catalogModules.ts';
import { toolCallPath, toolSignature } from './js/types/declarations.ts';
import type { CatalogLayout, ToolLocation } from './layout.ts';
import type { CodeModeSearch } from './toolSearch.ts';

export const SEARCH_DESCRIPTION = `Search the tools of every connected plugin and MCP server (also those registered with register_mcp_server), to call them from code with execute_code.

language="python" (default) returns the best matches, each with its import line:
  from mcptools.<plugin> import <tool>
  result = <tool>.run({...arguments...})
detail="name" gives the import lines, "summary" adds each tool's one-line description, "full" adds
the signature and docstring of run() (its parameters, types and what it returns).
language="typescript" or "javascript" returns each match as its call, await tools.<plugin>.<tool>({...})
(a name that is not an identifier is quoted: tools["my-server"]["get-item"]({...})); "full" adds its
TypeScript signature and documentation. Search with a few words about the task ("read file",
"create entity"); ask for "full" for the tools you will call.`;

export type SearchDetail = 'name' | 'summary' | 'full';
export type SearchLanguage = 'python' | 'typescript' | 'javascript';

export function registerSearchTool(
  server: PluginServer,
  search: CodeModeSearch,
  modules: CatalogModules,
  /** Before each search: take on registrations made meanwhile (by the ipybox plugin beside). */
  refresh: () => Promise<void>,
): void {
  server.registerTool(
    'search_tools',
    {
      title: 'Search tools',
      description: SEARCH_DESCRIPTION,
      inputSchema: {
        query: z.string().min(1).describe('A few words about what the tool should do'),
        detail: z
          .enum(['name', 'summary', 'full'])
          .default('name')
          .describe('name: import lines; summary: plus descriptions; full: plus signatures'),
        limit: z.number().int().min(1).max(50).default(10).describe('At most this many tools'),
        language: z
          .enum(['python', 'typescript', 'javascript'])
          .default('python')
          .describe('The language of the code that will call the tools'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ query, detail, limit, language }, ctx) => {
      await refresh();
      await modules.settled();
      const layout = modules.layout;
      const reachable = new Set(server.catalog.tools({ caller: ctx }).map((t) => t.tool.name));
      // A registered server's tools are the kernel's own (not the catalog's): kept for Python,
      // out of reach of the JavaScript runtime, which calls only the catalog.
      const keep = (at: ToolLocation) =>
        layout.locate(at.tool.name) !== at ? language === 'python' : reachable.has(at.tool.name);
      return searchResult(search, layout, query, detail, limit, keep, language);
    },
  );
}

/** The ranked hits as text. */
export async function searchResult(
  search: CodeModeSearch,
  layout: CatalogLayout,
  query: string,
  detail: SearchDetail,
  limit: number,
  keep?: (location: ToolLocation) => boolean,
  language: SearchLanguage = 'python',
): Promise<CallToolResult> {
  const hits = await search.search(layout, query, limit, keep);
  if (hits.length === 0) {
    const counts = await search.counts(layout, keep);
    return { content: [{ type: 'text', text: noHits(query, counts) }] };
  }
  const blocks = hits.map((hit) =>
    language === 'python' ? describe(hit, detail) : describeForScript(hit, detail),
  );
  const text = [
    `${hits.length} tool${hits.length === 1 ? '' : 's'} for ${JSON.stringify(query)} (call them in execute_code):`,
    ...blocks,
  ].join(detail === 'full' ? '\n\n' : '\n');
  return { content: [{ type: 'text', text }] };
}

function describe(hit: ToolLocation, detail: SearchDetail): string {
  if (detail === 'name') return hit.importLine;
  const summary = firstLine(hit.tool.description ?? hit.tool.title ?? '');
  if (detail === 'summary') return `${hit.importLine}  # ${summary || hit.tool.name}`;
  const run = renderRunDeclaration(hit.tool);
  return [
    `# ${hit.plugin}: ${hit.tool.name}`,
    hit.importLine,
    ...(run.types.length > 0 ? ['', ...run.types] : []),
    '',
    run.signature,
    run.docstring,
  ].join('\n');
}

/** A hit as JavaScript/TypeScript code calls it (`js/types/declarations.ts`). */
function describeForScript(hit: ToolLocation, detail: SearchDetail): string {
  const call = `${toolCallPath(hit.plugin, hit.tool.name)}({...})`;
  if (detail === 'name') return call;
  const summary = firstLine(hit.tool.description ?? hit.tool.title ?? '');
  if (detail === 'summary') return `${call}  // ${summary || hit.tool.name}`;
  return [`// ${hit.plugin}: ${hit.tool.name}`, toolSignature(hit.plugin, hit.tool)].join('\n');
}

function firstLine(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 160 ? `${line.slice(0, 157)}...` : line;
}

/** No hits: say so, and name the plugins, the ones nearest to the query's words first. */
function noHits(query: string, counts: ReadonlyMap<string, number>): string {
  if (counts.size === 0) {
    return 'No tools: no plugin or MCP server with tools callable from code is loaded.';
  }
  const words = query
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
  const closeness = (plugin: string) =>
    Math.max(0, ...words.map((word) => sharedTrigrams(word, plugin.toLowerCase())));
  const ranked = [...counts.keys()].sort((a, b) => closeness(b) - closeness(a) || (a < b ? -1 : 1));
  const listed = ranked.slice(0, 15).map((p) => `${p} (${counts.get(p)} tools)`);
  const more = ranked.length > 15 ? `, and ${ranked.length - 15} more` : '';
  return (
    `No tools match ${JSON.stringify(query)}. Plugins, nearest to your words first: ` +
    `${listed.join(', ')}${more}. Try other words, e.g. a plugin name or what the tool does.`
  );
}

/** How many three-letter pieces two words share (a typo keeps most of them). */
function sharedTrigrams(a: string, b: string): number {
  const pieces = (word: string) =>
    new Set(Array.from({ length: Math.max(0, word.length - 2) }, (_, i) => word.slice(i, i + 3)));
  const theirs = pieces(b);
  return [...pieces(a)].filter((piece) => theirs.has(piece)).length;
}
