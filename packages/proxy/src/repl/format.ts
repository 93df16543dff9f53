/**
 * Turns MCP results into the text the interactive client prints. Pure functions of their
 * input, so what a user sees is tested without a server.
 */
import type {
  CallToolResult,
  GetPromptResult,
  Implementation,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplateType,
  ServerCapabilities,
  Tool,
} from '@modelcontextprotocol/server';
import { parametersOf } from './schema.ts';

type ContentBlock = CallToolResult['content'][number];

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The first line of a description, cut to fit one terminal line beside the name. */
function summary(description: string | undefined, max = 100): string {
  const first = (description ?? '').trim().split('\n')[0] ?? '';
  return first.length > max ? `${first.slice(0, max - 1)}…` : first;
}

function withSummary(head: string, description: string | undefined): string {
  const text = summary(description);
  return text ? `  ${head} — ${text}` : `  ${head}`;
}

/** `name(a, b?)`: required parameters plain, optional ones with `?`. */
export function signature(name: string, inputSchema: unknown): string {
  const params = parametersOf(inputSchema).map((p) => (p.required ? p.name : `${p.name}?`));
  return `${name}(${params.join(', ')})`;
}

export function formatTools(tools: Tool[]): string {
  if (tools.length === 0) return 'No tools.';
  const lines = tools.map((t) => withSummary(signature(t.name, t.inputSchema), t.description));
  return [`${plural(tools.length, 'tool')}:`, ...lines].join('\n');
}

export function formatResources(resources: Resource[], templates: ResourceTemplateType[]): string {
  const out: string[] = [];
  if (resources.length === 0 && templates.length === 0) return 'No resources.';
  if (resources.length > 0) {
    out.push(`${plural(resources.length, 'resource')}:`);
    for (const r of resources) {
      const mime = r.mimeType ? ` (${r.mimeType})` : '';
      const name = r.name && r.name !== r.uri ? `  ${r.name}` : '';
      out.push(withSummary(`${r.uri}${name}${mime}`, r.description));
    }
  }
  if (templates.length > 0) {
    out.push(`${plural(templates.length, 'resource template')}:`);
    for (const t of templates) out.push(withSummary(t.uriTemplate, t.description));
  }
  return out.join('\n');
}

export function formatPrompts(prompts: Prompt[]): string {
  if (prompts.length === 0) return 'No prompts.';
  const lines = prompts.map((p) => {
    const args = (p.arguments ?? []).map((a) => (a.required ? a.name : `${a.name}?`));
    return withSummary(`${p.name}(${args.join(', ')})`, p.description);
  });
  return [`${plural(prompts.length, 'prompt')}:`, ...lines].join('\n');
}

function byteLength(base64: string): number {
  return Buffer.from(base64, 'base64').length;
}

/** One content block: text as is, binary as `[image image/png, N bytes]`. */
export function formatContentBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type} ${block.mimeType}, ${byteLength(block.data)} bytes]`;
    case 'resource_link': {
      const name = block.name && block.name !== block.uri ? ` (${block.name})` : '';
      return `[resource link ${block.uri}${name}]`;
    }
    case 'resource': {
      const r = block.resource;
      if ('text' in r && typeof r.text === 'string') return `[resource ${r.uri}]\n${r.text}`;
      const blob = 'blob' in r && typeof r.blob === 'string' ? byteLength(r.blob) : 0;
      return `[resource ${r.uri} ${r.mimeType ?? 'application/octet-stream'}, ${blob} bytes]`;
    }
    default:
      return JSON.stringify(block);
  }
}

export function formatCallResult(result: CallToolResult): string {
  const out: string[] = [];
  if (result.isError) out.push('Tool error (isError):');
  for (const block of result.content ?? []) out.push(formatContentBlock(block));
  if (result.structuredContent !== undefined) {
    out.push(`structuredContent:\n${JSON.stringify(result.structuredContent, null, 2)}`);
  }
  // Servers on protocol 2024-10-07 and older answer with `toolResult` instead of `content`.
  if ('toolResult' in result) out.push(JSON.stringify(result.toolResult, null, 2));
  if (out.length === 0) out.push('(no content)');
  return out.join('\n');
}

export function formatReadResult(result: ReadResourceResult): string {
  const parts = result.contents.map((c) => {
    if ('text' in c && typeof c.text === 'string') {
      return result.contents.length > 1 ? `[${c.uri}]\n${c.text}` : c.text;
    }
    const blob = 'blob' in c && typeof c.blob === 'string' ? byteLength(c.blob) : 0;
    return `[blob ${c.uri} ${c.mimeType ?? 'application/octet-stream'}, ${blob} bytes]`;
  });
  return parts.length > 0 ? parts.join('\n') : '(empty resource)';
}

export function formatPromptResult(result: GetPromptResult): string {
  const out: string[] = [];
  if (result.description) out.push(result.description);
  for (const m of result.messages) out.push(`[${m.role}] ${formatContentBlock(m.content)}`);
  return out.join('\n');
}

export interface ServerInfo {
  version: Implementation | undefined;
  capabilities: ServerCapabilities | undefined;
  instructions: string | undefined;
  /** How we reached it: `stdio (pid 123)`, `Streamable HTTP http://…`. */
  via: string;
}

export function formatInfo(info: ServerInfo): string {
  const v = info.version;
  const title = v?.title && v.title !== v.name ? ` (${v.title})` : '';
  const out = [
    `Server: ${v ? `${v.name} ${v.version}${title}` : 'unknown'}`,
    `Connected via: ${info.via}`,
    `Capabilities: ${JSON.stringify(info.capabilities ?? {}, null, 2)}`,
  ];
  if (info.instructions) out.push(`Instructions:\n${info.instructions}`);
  return out.join('\n');
}

/** `Tool list refreshed: 3 -> 5 tools (+add, +mul)`. */
export function formatListChange(
  kind: 'tool' | 'resource' | 'prompt',
  before: string[] | undefined,
  after: string[],
): string {
  const label = `${kind[0].toUpperCase()}${kind.slice(1)} list refreshed`;
  if (before === undefined) return `${label}: ${plural(after.length, kind)}`;
  const old = new Set(before);
  const now = new Set(after);
  const diff = [
    ...after.filter((n) => !old.has(n)).map((n) => `+${n}`),
    ...before.filter((n) => !now.has(n)).map((n) => `-${n}`),
  ];
  const suffix = diff.length > 0 ? ` (${diff.join(', ')})` : '';
  return `${label}: ${before.length} -> ${plural(after.length, kind)}${suffix}`;
}

/**
 * An error as one readable line. `fetch failed` alone says nothing, so the network cause
 * (ECONNREFUSED and the address) is appended.
 */
export function formatError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as { cause?: unknown }).cause;
  if (cause instanceof Error && !err.message.includes(cause.message)) {
    return `${err.message} (${cause.message})`;
  }
  return err.message;
}
