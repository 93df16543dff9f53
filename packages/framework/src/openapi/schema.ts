/**
 * OpenAPI schema objects as JSON Schema for tool definitions. OpenAPI 3.1 schemas are JSON
 * Schema already; 3.0's differ in a few places, rewritten here: `nullable: true` becomes a
 * `null` type, boolean `exclusiveMinimum`/`exclusiveMaximum` become numbers. In an input schema
 * `readOnly` properties are left out (the server sets them), in an output schema `writeOnly`
 * ones. A `$ref` that dereferencing left (a recursive schema) becomes an open schema that says
 * so. Everything else — `enum`, `format`, `default`, `required`, descriptions — is kept.
 *
 * @module
 */
import type { JsonSchemaObject } from '../contract/schema.ts';

export type Direction = 'input' | 'output';

/** Keys that only document a schema for humans or code generators; tools do not need them. */
const DROPPED = new Set(['xml', 'externalDocs', 'example', 'discriminator', '$id', '$schema']);

/** Keys whose value is one schema. */
const SCHEMA_KEYS = ['items', 'additionalProperties', 'not', 'contains', 'propertyNames'];
/** Keys whose value is a list of schemas. */
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];

/** The JSON Schema of an OpenAPI schema object, for tool `direction`. */
export function toJsonSchema(schema: unknown, direction: Direction): JsonSchemaObject {
  const converted = convert(schema, direction, new Set());
  return typeof converted === 'object' ? converted : {};
}

function convert(
  schema: unknown,
  direction: Direction,
  seen: Set<unknown>,
): JsonSchemaObject | boolean {
  if (typeof schema === 'boolean') return schema;
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return {};
  if (seen.has(schema)) return { description: 'recursive (see the enclosing schema)' };
  const source = schema as Record<string, unknown>;
  if (typeof source.$ref === 'string') {
    return { description: `recursive: a value of ${source.$ref.split('/').pop()}` };
  }
  seen.add(schema);
  const out: JsonSchemaObject = {};
  for (const [key, value] of Object.entries(source)) {
    if (DROPPED.has(key) || key.startsWith('x-')) continue;
    if (key === 'properties') out.properties = properties(value, direction, seen);
    else if (SCHEMA_KEYS.includes(key) && typeof value === 'object' && value !== null) {
      out[key] = convert(value, direction, seen);
    } else if (SCHEMA_LISTS.includes(key) && Array.isArray(value)) {
      out[key] = value.map((item) => convert(item, direction, seen));
    } else if (key !== 'nullable') out[key] = value;
  }
  seen.delete(schema);
  // A file part travels as base64 in the JSON arguments (request.ts decodes it).
  if (direction === 'input' && out.format === 'binary') out.contentEncoding = 'base64';
  // `required` may name a property left out for this direction.
  if (Array.isArray(out.required) && out.properties) {
    const kept = out.properties as Record<string, unknown>;
    out.required = out.required.filter((name) => typeof name === 'string' && name in kept);
    if ((out.required as unknown[]).length === 0) delete out.required;
  }
  if (source.nullable === true) makeNullable(out);
  for (const bound of ['Minimum', 'Maximum'] as const) {
    const flag = out[`exclusive${bound}`];
    if (typeof flag !== 'boolean') continue;
    const limit = bound.toLowerCase();
    if (flag && typeof out[limit] === 'number') {
      out[`exclusive${bound}`] = out[limit];
      delete out[limit];
    } else delete out[`exclusive${bound}`];
  }
  return out;
}

/** The properties kept for `direction`. */
function properties(
  value: unknown,
  direction: Direction,
  seen: Set<unknown>,
): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  const hidden = direction === 'input' ? 'readOnly' : 'writeOnly';
  for (const [name, property] of Object.entries((value ?? {}) as Record<string, unknown>)) {
    if ((property as Record<string, unknown> | null)?.[hidden] === true) continue;
    kept[name] = convert(property, direction, seen);
  }
  return kept;
}

function makeNullable(schema: JsonSchemaObject): void {
  // JsonSchemaObject types `type` as a string; a list of types is JSON Schema all the same.
  const open = schema as Record<string, unknown>;
  const type = open.type;
  if (typeof type === 'string') open.type = [type, 'null'];
  else if (Array.isArray(type) && !type.includes('null')) open.type = [...type, 'null'];
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) {
    schema.enum = [...schema.enum, null];
  }
}
