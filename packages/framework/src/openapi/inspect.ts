/**
 * What an OpenAPI document would become, as text for `mcp-proxy openapi inspect SPEC`: each
 * tool with its operation, annotations and parameters (name, where it goes, type, required),
 * then what is not served and why.
 *
 * @module
 */
import { loadDocument } from './document.ts';
import { parseOpenApiSettings } from './settings.ts';
import { type ToolSet, toolsOf } from './tools.ts';

/** Reads `spec` with the given selection settings and lists the tools it makes. */
export async function inspectOpenApi(
  spec: string,
  selection: { include?: string[]; exclude?: string[] } = {},
): Promise<{ title: string; toolSet: ToolSet }> {
  const settings = parseOpenApiSettings({ spec, ...selection }, 'openapi');
  const { document, location } = await loadDocument(settings.spec, settings.timeoutMs);
  const title = [document.info?.title, document.info?.version].filter(Boolean).join(' ');
  return {
    title: `${title || location} (OpenAPI ${document.openapi})`,
    toolSet: toolsOf(document, settings, 'openapi'),
  };
}

export function renderInspection(title: string, { tools, skipped }: ToolSet): string {
  const lines = [`${title}: ${tools.length} tool${tools.length === 1 ? '' : 's'}`, ''];
  for (const tool of tools) {
    const { method, path } = tool.operation;
    const flags = [
      tool.annotations.readOnlyHint && 'read-only',
      tool.annotations.destructiveHint && 'destructive',
      tool.annotations.idempotentHint && 'idempotent',
    ].filter(Boolean);
    lines.push(
      `${tool.name}  ${method.toUpperCase()} ${path}${flags.length ? `  [${flags.join(', ')}]` : ''}`,
    );
    const summary = tool.description.split('\n')[0];
    if (summary) lines.push(`  ${summary}`);
    const properties = (tool.inputSchema.properties ?? {}) as Record<string, { type?: unknown }>;
    const required = new Set((tool.inputSchema.required as string[] | undefined) ?? []);
    const where = new Map(tool.operation.parameters.map((p) => [p.name, p.in]));
    for (const [name, schema] of Object.entries(properties)) {
      const location = where.get(name) ?? tool.operation.body?.mediaType ?? 'body';
      const type = Array.isArray(schema.type) ? schema.type.join('|') : (schema.type ?? 'any');
      lines.push(`    ${name}${required.has(name) ? '*' : ''}: ${String(type)} (${location})`);
    }
    if (tool.outputSchema) lines.push('    → structured output');
  }
  if (skipped.length > 0) {
    lines.push('', 'Left out:');
    for (const { what, reason } of skipped) lines.push(`  ${what}: ${reason}`);
  }
  lines.push('', '* required');
  return lines.join('\n');
}
