/**
 * Turns a tool's declared schema (zod raw shape, zod schema, or raw JSON Schema) into the JSON
 * Schema clients see and a validator for arguments. Done once, at registration: the call path only
 * runs the validator.
 *
 * @module
 */

import type { Ajv, ValidateFunction } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { AnySchema, SchemaLike } from '../contract/schema.ts';
import { McpboxError } from '../errors.ts';
import { lazyRequire } from '../lazy.ts';
import {
  isZodRawShape,
  isZodSchema,
  objectFromShape,
  type ValidationResult,
  validateStandard,
  zodToJson,
} from './zodCompat.ts';

// Loaded when the first JSON Schema is compiled (see lazy.ts).
const ajv07 = lazyRequire<typeof import('ajv')>('ajv');
const ajv2020 = lazyRequire<typeof import('ajv/dist/2020.js')>('ajv/dist/2020.js');
const ajvFormats = lazyRequire<(ajv: Ajv | Ajv2020) => void>('ajv-formats');

export type { ValidationResult };
export { isZodRawShape, isZodSchema };

/** A schema ready for use: its JSON form for listings and a validator for values. */
export interface CompiledSchema {
  readonly json: Record<string, unknown>;
  validate(value: unknown): ValidationResult | Promise<ValidationResult>;
  /** The zod object schema, when the schema was declared with zod (prompts read its shape). */
  readonly zod?: AnySchema;
}

const EMPTY_OBJECT_SCHEMA: Record<string, unknown> = { type: 'object', properties: {} };

function compileZod(schema: AnySchema, pipe: 'input' | 'output'): CompiledSchema {
  return {
    json: zodToJson(schema, pipe) ?? EMPTY_OBJECT_SCHEMA,
    zod: schema,
    validate: (value) => validateStandard(schema, value),
  };
}

/**
 * One ajv instance per JSON Schema dialect. Draft-07 is ajv's default and what most MCP servers
 * emit (same options as the SDK's default validator); a schema that declares 2020-12 gets the
 * 2020 dialect (prefixItems, $defs, unevaluatedProperties…).
 *
 * ajv never forgets what an instance compiled: besides its schema cache, every validator and its
 * schema go into the instance's code scope for good (~3.5 KiB a schema). Reloads register the
 * same schemas again and again, so validators are shared by schema content — a reload whose
 * schemas did not change compiles nothing — and after `ROTATE_AFTER` distinct schemas the
 * dialect starts a fresh instance, so the old one is freed once its tools are gone.
 */
const ROTATE_AFTER = 500;

interface Dialect {
  ajv: Ajv | Ajv2020;
  validators: Map<string, ValidateFunction>;
}

const dialects = new Map<'draft07' | 'draft2020', Dialect>();

function newAjv(name: 'draft07' | 'draft2020'): Ajv | Ajv2020 {
  const ajv =
    name === 'draft2020'
      ? new (ajv2020().Ajv2020)({ strict: false, validateFormats: true, allErrors: true })
      : new (ajv07().Ajv)({
          strict: false,
          validateFormats: true,
          validateSchema: false,
          allErrors: true,
        });
  ajvFormats()(ajv);
  return ajv;
}

function dialectOf(schema: Record<string, unknown>): Dialect {
  const declared = typeof schema.$schema === 'string' ? schema.$schema : '';
  const name =
    declared.includes('2020-12') || declared.includes('2019-09') ? 'draft2020' : 'draft07';
  let dialect = dialects.get(name);
  if (!dialect || dialect.validators.size >= ROTATE_AFTER) {
    dialect = { ajv: newAjv(name), validators: new Map() };
    dialects.set(name, dialect);
  }
  return dialect;
}

function validatorFor(schema: Record<string, unknown>): {
  ajv: Ajv | Ajv2020;
  check: ValidateFunction;
} {
  const dialect = dialectOf(schema);
  const key = JSON.stringify(schema);
  let check = dialect.validators.get(key);
  if (!check) {
    try {
      check = dialect.ajv.compile(schema);
    } finally {
      // Out of ajv's schema cache (keyed by the object): the key above finds it again.
      dialect.ajv.removeSchema(schema);
    }
    dialect.validators.set(key, check);
  }
  return { ajv: dialect.ajv, check };
}

function compileJsonSchema(schema: Record<string, unknown>): CompiledSchema {
  let ajv: Ajv | Ajv2020;
  let check: ValidateFunction;
  try {
    ({ ajv, check } = validatorFor(schema));
  } catch (error) {
    throw new McpboxError(
      'INVALID_SCHEMA',
      `invalid JSON Schema: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return {
    json: schema,
    validate(value) {
      return check(value)
        ? { ok: true, value }
        : { ok: false, message: ajv.errorsText(check.errors) || 'invalid value' };
    },
  };
}

/**
 * Compiles a declared schema. A raw JSON Schema object is kept as is (same object, so it reaches
 * clients byte for byte); zod is converted with the SDK's converter, as `McpServer` does.
 */
export function compileSchema(schema: SchemaLike, pipe: 'input' | 'output'): CompiledSchema {
  if (isZodRawShape(schema)) return compileZod(objectFromShape(schema), pipe);
  if (isZodSchema(schema)) return compileZod(schema, pipe);
  if (schema !== null && typeof schema === 'object' && !Array.isArray(schema)) {
    return compileJsonSchema(schema as Record<string, unknown>);
  }
  throw new McpboxError(
    'INVALID_SCHEMA',
    'a schema must be a zod raw shape, a zod schema or a JSON Schema object',
  );
}

/** The schema of a tool that declared none: any object, no validation. */
export const NO_INPUT_SCHEMA: Record<string, unknown> = EMPTY_OBJECT_SCHEMA;
