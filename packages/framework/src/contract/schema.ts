/**
 * Schemas as a plugin gives them: a zod raw shape, any Standard Schema (zod 3 or 4, valibot…),
 * or a raw JSON Schema — and the argument types a handler sees for each. Part of the plugin
 * contract, so it names no implementation: the catalog compiles these (`catalog/schema.ts`,
 * `catalog/zodCompat.ts`).
 *
 * @module
 */
import type { z } from 'zod';

/** Any schema with a Standard Schema validator (zod ≥ 3.24, zod 4, valibot, arktype…). */
export interface AnySchema {
  readonly '~standard': {
    validate(value: unknown): StandardResult | Promise<StandardResult>;
  };
}

export type StandardResult =
  | { value: unknown; issues?: undefined }
  | { issues: ReadonlyArray<{ message: string; path?: ReadonlyArray<unknown> }> };

/** A zod raw shape: `{ name: z.string(), … }`. */
export type ZodRawShapeCompat = Record<string, AnySchema>;

/** A JSON Schema object, passed to clients byte for byte and checked with ajv. */
export type JsonSchemaObject = { type?: string; $schema?: string; [key: string]: unknown };

/** A tool's input or output schema: a zod raw shape, a zod schema, or a raw JSON Schema. */
export type SchemaLike = ZodRawShapeCompat | AnySchema | JsonSchemaObject;

/** What a validated schema yields: zod's own inference where it can see it. */
type SchemaOutput<S> = S extends z.ZodType
  ? z.output<S>
  : S extends { '~standard': { types?: { output: infer O } } }
    ? O
    : unknown;

/** What a raw shape yields once validated. */
export type ShapeOutput<S> = S extends z.ZodRawShape
  ? z.output<z.ZodObject<S>>
  : { [K in keyof S]: SchemaOutput<S[K]> };

/** The arguments a handler receives for a given input schema. */
export type ArgsOf<S> = S extends ZodRawShapeCompat
  ? ShapeOutput<S>
  : S extends AnySchema
    ? SchemaOutput<S>
    : Record<string, unknown>;
