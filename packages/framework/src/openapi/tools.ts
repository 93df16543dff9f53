/**
 * A document's operations as tool definitions: one tool per operation that `include`/`exclude`
 * let through, named from its `operationId` (else method and path), described from its summary
 * and description — or as the config's `operations:` renames and re-describes it. The input
 * schema joins the path, query, header and cookie parameters by name, and the request body
 * under `body`; the output schema is the 2xx JSON response's, when that is an object.
 * Annotations follow the method's semantics.
 *
 * Two operations that end up with one name are a config error naming both; what is not served
 * is listed with the reason (`skipped`), for the log and `mcp-proxy openapi inspect`.
 *
 * @module
 */
import type { ToolAnnotations } from '@modelcontextprotocol/server';
import { globToRegExp } from '../catalog/toolListing.ts';
import type { JsonSchemaObject } from '../contract/schema.ts';
import type { OpenApiDocument } from './document.ts';
import { isJson, METHODS, type Operation, type Requirement, readOperation } from './operation.ts';
import { toJsonSchema } from './schema.ts';
import type { OpenApiSettings } from './settings.ts';

export interface ToolDefinition {
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonSchemaObject;
  outputSchema?: JsonSchemaObject;
  annotations: ToolAnnotations;
  operation: Operation;
}

export interface Skipped {
  /** `GET /pets/{id}` or `listPets (GET /pets)`. */
  what: string;
  reason: string;
}

export interface ToolSet {
  tools: ToolDefinition[];
  skipped: Skipped[];
}

type Selection = Pick<OpenApiSettings, 'include' | 'exclude' | 'operations'>;

/**
 * The tools of `document` under `settings`.
 *
 * @throws Error naming the operations when two of them would be one tool, or an `operations:`
 *   key that names no operation.
 */
export function toolsOf(document: OpenApiDocument, settings: Selection, label: string): ToolSet {
  const tools: ToolDefinition[] = [];
  const skipped: Skipped[] = [];
  const include = matcher(settings.include);
  const exclude = matcher(settings.exclude);
  const overridden = new Set<string>();
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const raw = item?.[method] as Record<string, unknown> | undefined;
      if (!raw || typeof raw !== 'object') continue;
      const generated = toolName(raw.operationId, method, path);
      const what = `${typeof raw.operationId === 'string' ? `${raw.operationId} ` : ''}(${method.toUpperCase()} ${path})`;
      const keys = [raw.operationId, generated].filter((k): k is string => typeof k === 'string');
      const tags = Array.isArray(raw.tags) ? raw.tags.map(String) : [];
      if (include && !include(keys, tags)) continue;
      if (exclude?.(keys, tags)) continue;
      const operation = readOperation(method, path, item, raw, document.security as Requirement[]);
      if (typeof operation === 'string') {
        skipped.push({ what, reason: `not served: ${operation}` });
        continue;
      }
      for (const note of operation.notes) skipped.push({ what, reason: note });
      const overrideKey = keys.find((key) => settings.operations[key]);
      if (overrideKey) overridden.add(overrideKey);
      const override = overrideKey ? settings.operations[overrideKey] : undefined;
      tools.push(definition(operation, override?.name ?? generated, override?.description));
    }
  }
  for (const name of Object.keys(document.webhooks ?? {})) {
    skipped.push({
      what: `webhook ${name}`,
      reason: 'not served: webhooks are calls from the API, not tools',
    });
  }
  const unknown = Object.keys(settings.operations).filter((key) => !overridden.has(key));
  if (unknown.length > 0) {
    throw new Error(
      `${label}.operations: no included operation is called ${unknown.map((k) => `'${k}'`).join(', ')} (use an operationId, or the tool name inspect shows)`,
    );
  }
  checkCollisions(tools, label);
  return { tools, skipped };
}

/** `operationId` made a valid tool name, or `get_pets_petId` from the method and path. */
export function toolName(operationId: unknown, method: string, path: string): string {
  const raw = typeof operationId === 'string' && operationId ? operationId : `${method}_${path}`;
  const name = raw
    .replace(/[^A-Za-z0-9_.-]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_|_$/g, '');
  return name.slice(0, 128) || method;
}

/** `tag:NAME` matches a tag, anything else an operationId or tool name; `*` and `?` glob. */
function matcher(patterns: string[]) {
  if (patterns.length === 0) return undefined;
  const tagGlobs = patterns
    .filter((p) => p.startsWith('tag:'))
    .map((p) => globToRegExp(p.slice(4)));
  const nameGlobs = patterns.filter((p) => !p.startsWith('tag:')).map(globToRegExp);
  return (names: string[], tags: string[]) =>
    names.some((n) => nameGlobs.some((g) => g.test(n))) ||
    tags.some((t) => tagGlobs.some((g) => g.test(t)));
}

function checkCollisions(tools: ToolDefinition[], label: string): void {
  const seen = new Map<string, Operation>();
  for (const tool of tools) {
    const first = seen.get(tool.name);
    if (first) {
      throw new Error(
        `${label}: ${describe(first)} and ${describe(tool.operation)} would both be the tool '${tool.name}': give one another name under ${label}.operations`,
      );
    }
    seen.set(tool.name, tool.operation);
  }
}

function describe(operation: Operation): string {
  return `${operation.method.toUpperCase()} ${operation.path}`;
}

function definition(operation: Operation, name: string, description?: string): ToolDefinition {
  const output = outputSchemaOf(operation.responses);
  const title = operation.summary;
  return {
    name,
    ...(title !== undefined && { title }),
    description: description ?? describeOperation(operation),
    inputSchema: inputSchemaOf(operation),
    ...(output && { outputSchema: output }),
    annotations: annotationsOf(operation.method, title),
    operation,
  };
}

function describeOperation(operation: Operation): string {
  const parts = [operation.summary, operation.description].filter(
    (part): part is string => typeof part === 'string' && part.trim() !== '',
  );
  if (parts.length === 2 && parts[1].startsWith(parts[0])) parts.shift();
  const text = parts.join('\n\n') || describe(operation);
  return operation.deprecated ? `(deprecated) ${text}` : text;
}

function inputSchemaOf(operation: Operation): JsonSchemaObject {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const parameter of operation.parameters) {
    const schema = toJsonSchema(parameter.schema, 'input');
    if (parameter.description && schema.description === undefined) {
      schema.description = parameter.description;
    }
    if (parameter.deprecated) schema.deprecated = true;
    properties[parameter.name] = schema;
    if (parameter.required) required.push(parameter.name);
  }
  if (operation.body) {
    const schema = toJsonSchema(operation.body.schema, 'input');
    if (operation.body.description && schema.description === undefined) {
      schema.description = operation.body.description;
    }
    properties.body = schema;
    if (operation.body.required) required.push('body');
  }
  return {
    type: 'object',
    properties,
    ...(required.length > 0 && { required }),
    additionalProperties: false,
  };
}

/**
 * The first 2xx response's JSON schema, if it is an object schema and every 2xx response has
 * one (a 204 beside a 200 would answer without the structured content the schema promises).
 */
function outputSchemaOf(responses: Record<string, unknown>): JsonSchemaObject | undefined {
  const success = Object.keys(responses).filter((code) => /^2(\d\d|XX)$/i.test(code));
  let found: JsonSchemaObject | undefined;
  for (const code of success.sort()) {
    const content = (responses[code] as { content?: Record<string, { schema?: unknown }> })
      ?.content;
    const type = Object.keys(content ?? {}).find(isJson);
    if (type === undefined) return undefined;
    const schema = toJsonSchema(content?.[type]?.schema, 'output');
    if (schema.type !== 'object') return undefined;
    found ??= schema;
  }
  return found;
}

/** What the method says about a call: GET reads, PUT and DELETE may repeat, DELETE destroys. */
function annotationsOf(method: string, title: string | undefined): ToolAnnotations {
  const reads = method === 'get' || method === 'head' || method === 'options';
  return {
    ...(title !== undefined && { title }),
    readOnlyHint: reads,
    ...((reads || method === 'delete') && { destructiveHint: method === 'delete' }),
    idempotentHint: reads || method === 'put' || method === 'delete',
    openWorldHint: true,
  };
}
