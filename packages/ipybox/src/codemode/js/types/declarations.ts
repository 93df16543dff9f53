/**
 * The TypeScript API code mode gives JavaScript/TypeScript code: `tools.<server>.<tool>(args)`,
 * one method per tool of the caller's catalog view, typed from the tool's input and output
 * schemas (`schemaToTs.ts`) and documented from its descriptions.
 *
 * Names are never changed: `<server>` is the plugin (or mirrored server) name and `<tool>` the
 * tool's own name, so what code calls is what the catalog calls. A name that is not an
 * identifier is a quoted key, reached with brackets: `tools["my-server"]["get-item"]({...})`
 * (`toolCallPath` writes the right form).
 *
 * What a call resolves to is one contract with the runtime, `BridgedToolResult`: the tool's
 * `structuredContent` when the tool declares an `outputSchema` (typed from it), else the MCP
 * result's `{ content, isError? }` (`ToolResult` in the declarations). `bridgedResult` applies it.
 *
 * @module
 */
import type { CatalogToolInfo } from '@mcpbox/framework';
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import { jsDoc, memberAccess, propertyKey, TsTypeContext, typeName } from './schemaToTs.ts';

/** What a tool without an `outputSchema` resolves to in code (the MCP result less its `_meta`). */
export interface UnstructuredToolResult {
  content: CallToolResult['content'];
  isError?: boolean;
}

/**
 * The runtime's contract: a call resolves to the tool's `structuredContent` (of the type its
 * `outputSchema` declares) when the tool has an `outputSchema` and the result carries it, else
 * to an `UnstructuredToolResult`. An error result is always `{ content, isError: true }` (what
 * the runtime makes of it — a thrown error — is the runtime's). The declarations promise this.
 */
export type BridgedToolResult = Record<string, unknown> | UnstructuredToolResult;

/** The value code receives for `result` of a call to `tool` (see `BridgedToolResult`). */
export function bridgedResult(tool: Tool, result: CallToolResult): BridgedToolResult {
  if (result.isError === true) return { content: result.content, isError: true };
  if (tool.outputSchema !== undefined && isRecord(result.structuredContent)) {
    return result.structuredContent;
  }
  return { content: result.content };
}

/** How code reaches a tool: `tools.memory.create_entities`, `tools["my-server"]["get-item"]`. */
export function toolCallPath(server: string, tool: string): string {
  return `tools${memberAccess(server)}${memberAccess(tool)}`;
}

/** Globals every declaration file has; generated aliases must not take these names. */
const GLOBALS = ['tools', 'session', 'console', 'ToolContent', 'ToolResult'];

const PREAMBLE = `/** One part of a tool's result: an MCP content block. */
type ToolContent =
  | { type: "text"; text: string; annotations?: Record<string, unknown>; _meta?: Record<string, unknown> }
  | { type: "image"; data: string; mimeType: string; annotations?: Record<string, unknown>; _meta?: Record<string, unknown> }
  | { type: "audio"; data: string; mimeType: string; annotations?: Record<string, unknown>; _meta?: Record<string, unknown> }
  | { type: "resource_link"; uri: string; name: string; title?: string; description?: string; mimeType?: string; size?: number; _meta?: Record<string, unknown> }
  | { type: "resource"; resource: { uri: string; mimeType?: string; text?: string; blob?: string; _meta?: Record<string, unknown> }; _meta?: Record<string, unknown> };

/** What a tool without an output schema resolves to. */
interface ToolResult {
  content: ToolContent[];
  isError?: boolean;
}

/** Kept between the calls of the same caller: JSON-serializable values only. */
declare const session: Record<string, unknown>;

/** Printed output of the call. */
declare const console: {
  log(...data: unknown[]): void;
  info(...data: unknown[]): void;
  warn(...data: unknown[]): void;
  error(...data: unknown[]): void;
  debug(...data: unknown[]): void;
};
`;

interface CacheEntry {
  tools: readonly CatalogToolInfo[];
  text: string;
}

/** Recent declaration files; a view is its tools' identities, which change with the catalog. */
const cache: CacheEntry[] = [];
const CACHE_SIZE = 8;

/** `results.load` (`isolate.ts`): the whole of a result the model saw as a preview. */
const RESULTS_DECLARATION = `/** Stored tool results (the model saw a preview): the whole, parsed, for this caller alone. */
declare const results: {
  /** By handle (\`_meta["io.mcpbox/result"].handle\`), its results:// link, or that _meta entry. */
  load(handle: string | { handle: string }): Promise<any>;
};`;

/**
 * The whole `.d.ts` for `tools` (the caller's view of the tools code may call): the result
 * types, `session`, `console`, and `declare const tools: {...}` with one method per tool.
 * A global script (no import or export), to check code against (`typeCheck`).
 */
export function toolDeclarations(tools: readonly CatalogToolInfo[]): string {
  const hit = cache.find((entry) => sameTools(entry.tools, tools));
  if (hit) return hit.text;
  const text = renderDeclarations(tools);
  cache.unshift({ tools: [...tools], text });
  cache.length = Math.min(cache.length, CACHE_SIZE);
  return text;
}

function renderDeclarations(tools: readonly CatalogToolInfo[]): string {
  const types = new TsTypeContext(GLOBALS);
  const servers = new Map<string, string[]>();
  for (const { plugin, tool } of tools) {
    const members = servers.get(plugin) ?? [];
    const prefix = typeName(`${plugin} ${tool.name}`);
    const { doc, call } = renderMethod(types, tool, { prefix, indent: '    ' });
    members.push(`${doc}\n    ${propertyKey(tool.name)}${call};`);
    servers.set(plugin, members);
  }
  const body = [...servers].map(
    ([server, members]) => `  ${propertyKey(server)}: {\n${members.join('\n')}\n  };`,
  );
  return [
    '// Generated by @mcpbox/ipybox code mode: the tools this caller may call.',
    PREAMBLE,
    ...types.declarations.map((d) => `${d}\n`),
    '/** The tools of the catalog: `await tools.<server>.<tool>({...})`. */',
    `declare const tools: {\n${body.join('\n')}\n};`,
    RESULTS_DECLARATION,
    '',
  ].join('\n');
}

/**
 * One tool as a search hit shows it: the aliases its schemas need, its JSDoc and its call
 * (`tools.memory.create_entities(args: {...}): Promise<...>`).
 */
export function toolSignature(server: string, tool: Tool): string {
  const types = new TsTypeContext(GLOBALS);
  const { doc, call } = renderMethod(types, tool, { prefix: '', indent: '' });
  return [...types.declarations, doc, `${toolCallPath(server, tool.name)}${call}`].join('\n');
}

/** A tool's JSDoc and its call after the name: `(args: {...}): Promise<...>`. */
function renderMethod(
  types: TsTypeContext,
  tool: Tool,
  { prefix, indent }: { prefix: string; indent: string },
): { doc: string; call: string } {
  const args = types.rootType(tool.inputSchema, { prefix, indent });
  const result =
    tool.outputSchema === undefined
      ? 'ToolResult'
      : types.rootType(tool.outputSchema, { prefix, indent });
  const required = Array.isArray(tool.inputSchema.required) && tool.inputSchema.required.length > 0;
  return {
    doc: jsDoc(methodDoc(tool), indent),
    call: `(args${required ? '' : '?'}: ${args}): Promise<${result}>`,
  };
}

function methodDoc(tool: Tool): string {
  const text = (tool.description ?? tool.title ?? '').trim();
  const returns =
    tool.outputSchema === undefined
      ? '@returns the MCP result `{ content, isError? }`'
      : "@returns the tool's structured result";
  return [text || tool.name, returns].join('\n');
}

function sameTools(a: readonly CatalogToolInfo[], b: readonly CatalogToolInfo[]): boolean {
  return (
    a.length === b.length && a.every((x, i) => x.tool === b[i]!.tool && x.plugin === b[i]!.plugin)
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
