/**
 * Zod, whichever major version a plugin brings. The host runs zod 4; a plugin package may ship its
 * own zod 3. Both implement Standard Schema (`~standard.validate`), which is all validation needs;
 * JSON Schema comes from zod 4's `toJSONSchema` or, for zod 3 schemas, from `zod-to-json-schema`.
 * Schemas are recognised by shape (`_zod` for 4, `_def` for 3), never by `instanceof`, so a copy of
 * zod other than the host's works too.
 *
 * @module
 */
import { z } from 'zod';
import type * as z3 from 'zod/v3';
import type { AnySchema, StandardResult, ZodRawShapeCompat } from '../contract/schema.ts';
import { zodToJsonSchemaPackage, zodV3 } from '../lazy.ts';

interface Zod4Like {
  _zod: { def: { type: string; innerType?: unknown } };
}
interface Zod3Like {
  _def: { typeName?: string; innerType?: unknown };
}

export function isZod4(value: unknown): value is Zod4Like {
  return value !== null && typeof value === 'object' && '_zod' in value;
}

/** A zod schema (v3 or v4) has `_def` or `_zod`, or at least `parse` and `safeParse`. */
export function isZodSchema(value: unknown): value is AnySchema {
  if (value === null || typeof value !== 'object') return false;
  if ('_def' in value || '_zod' in value) return true;
  const v = value as { parse?: unknown; safeParse?: unknown };
  return typeof v.parse === 'function' && typeof v.safeParse === 'function';
}

/** A raw shape is a plain object whose values are zod schemas (`{}` counts: no parameters). */
export function isZodRawShape(value: unknown): value is ZodRawShapeCompat {
  if (value === null || typeof value !== 'object' || isZodSchema(value)) return false;
  const values = Object.values(value);
  return values.length === 0 || values.some(isZodSchema);
}

/** `z.object(shape)` of the zod major version the fields were written with. */
export function objectFromShape(shape: ZodRawShapeCompat): AnySchema {
  const fields = Object.values(shape);
  if (fields.length > 0 && fields.every((f) => !isZod4(f))) {
    return zodV3().object(shape as unknown as z3.ZodRawShape) as unknown as AnySchema;
  }
  return z.object(shape as unknown as z.ZodRawShape) as unknown as AnySchema;
}

/** Object schemas only; anything else (a union, a string…) has no object JSON form. */
function isObjectSchema(schema: AnySchema): boolean {
  if (isZod4(schema)) return schema._zod.def.type === 'object';
  return (schema as unknown as Zod3Like)._def?.typeName === 'ZodObject';
}

/**
 * The JSON Schema of a zod object schema, as `McpServer` lists it: `input` describes what a caller
 * may send (defaults optional), `output` what the handler returns. `undefined` for a non-object.
 */
export function zodToJson(
  schema: AnySchema,
  pipe: 'input' | 'output',
): Record<string, unknown> | undefined {
  if (!isObjectSchema(schema)) return undefined;
  if (isZod4(schema)) {
    const json = z.toJSONSchema(schema as unknown as z.ZodType, {
      target: 'draft-7',
      io: pipe,
      unrepresentable: 'any',
    }) as Record<string, unknown>;
    delete json.$schema;
    return json;
  }
  const json = zodToJsonSchemaPackage().zodToJsonSchema(schema as never, {
    strictUnions: true,
    pipeStrategy: pipe,
    $refStrategy: 'none',
  }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

export type ValidationResult = { ok: true; value: unknown } | { ok: false; message: string };

function describeIssues(
  issues: ReadonlyArray<{ message: string; path?: ReadonlyArray<unknown> }>,
): string {
  return issues
    .map((issue) => {
      const path = (issue.path ?? [])
        .map((p) => (typeof p === 'object' && p !== null && 'key' in p ? p.key : p))
        .join('.');
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join('; ');
}

/**
 * Validates with the schema's Standard Schema interface; the message names each failing path.
 * Synchronous when the schema is (zod without async refinements): every tool call validates its
 * arguments, and a promise there costs it a turn of the microtask queue.
 */
export function validateStandard(
  schema: AnySchema,
  value: unknown,
): ValidationResult | Promise<ValidationResult> {
  const result = schema['~standard'].validate(value);
  // Any thenable is awaited (a promise of another realm too): a result has no `then`.
  return 'then' in result ? Promise.resolve(result).then(validationOf) : validationOf(result);
}

function validationOf(result: StandardResult): ValidationResult {
  if (result.issues) return { ok: false, message: describeIssues(result.issues) };
  return { ok: true, value: result.value };
}

/** `completable()` may be wrapped in `.optional()`: look inside (zod v3 and v4). */
export function unwrapOptional(field: AnySchema): AnySchema {
  if (isZod4(field)) {
    const def = field._zod.def;
    return def.type === 'optional' && def.innerType ? (def.innerType as AnySchema) : field;
  }
  const def = (field as unknown as Partial<Zod3Like>)._def;
  return def?.typeName === 'ZodOptional' && def.innerType ? (def.innerType as AnySchema) : field;
}

export function describeField(field: AnySchema): string | undefined {
  const f = field as { description?: unknown };
  if (typeof f.description === 'string') return f.description;
  const inner = unwrapOptional(field) as { description?: unknown };
  return typeof inner.description === 'string' ? inner.description : undefined;
}

export function isOptionalField(field: AnySchema): boolean {
  const f = field as { isOptional?: () => boolean };
  return typeof f.isOptional === 'function' ? f.isOptional() : false;
}

const COMPLETABLE = Symbol.for('mcp.completable');

/** The completion callback of a `completable()` field: SDK v2's symbol, or SDK v1's zod 3 wrapper. */
export function completerOf(
  field: AnySchema,
): ((value: string, context?: unknown) => unknown) | undefined {
  const inner = unwrapOptional(field) as unknown as Record<PropertyKey, unknown>;
  const marked = inner[COMPLETABLE] as { complete?: unknown } | undefined;
  if (typeof marked?.complete === 'function') return marked.complete as never;
  const def = (inner as Partial<Zod3Like> & { _def?: { complete?: unknown } })._def;
  if (def && typeof def.complete === 'function') return def.complete as never;
  return undefined;
}
