/**
 * The MCP Inspector's `--strict` "untyped-schema" rule, for tests: every subschema of a tool's
 * input schema must constrain its value (`type`, `enum`, `anyOf`, ...). `{}` accepts anything and
 * is flagged; a boolean `additionalProperties: true` is a deliberate free-form object, not
 * flagged.
 *
 * @module
 */
import type { Tool } from '@modelcontextprotocol/server';

/** The keywords the Inspector counts as constraining a value (assertions and applicators). */
const CONSTRAINING = new Set(
  [
    'type enum const multipleOf maximum exclusiveMaximum minimum exclusiveMinimum maxLength',
    'minLength pattern format contentMediaType contentEncoding contentSchema maxItems minItems',
    'uniqueItems maxContains minContains maxProperties minProperties required dependentRequired',
    'allOf anyOf oneOf not items prefixItems contains additionalItems unevaluatedItems properties',
    'patternProperties additionalProperties unevaluatedProperties propertyNames dependentSchemas',
    'dependencies $ref $dynamicRef $recursiveRef',
  ]
    .join(' ')
    .split(' '),
);
const MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const ARRAYS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SINGLE = ['items', 'additionalProperties', 'propertyNames', 'contains', 'not'];

/** Paths (`inputSchema.properties.args.additionalProperties`) of subschemas that accept anything. */
export function untypedSchemas(tool: Tool): string[] {
  const found: string[] = [];
  const walk = (node: unknown, path: string, keyword?: string): void => {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return;
    const schema = node as Record<string, unknown>;
    if (keyword !== 'not' && !Object.keys(schema).some((key) => CONSTRAINING.has(key))) {
      found.push(path);
    }
    for (const key of MAPS) {
      const map = schema[key];
      if (map && typeof map === 'object') {
        for (const [name, sub] of Object.entries(map)) walk(sub, `${path}.${key}.${name}`, key);
      }
    }
    for (const key of ARRAYS) {
      const list = schema[key];
      if (!Array.isArray(list)) continue;
      for (const [i, sub] of list.entries()) walk(sub, `${path}.${key}[${i}]`, key);
    }
    for (const key of SINGLE) if (key in schema) walk(schema[key], `${path}.${key}`, key);
  };
  walk(tool.inputSchema, 'inputSchema');
  return found;
}
