/**
 * Reading an OpenAPI document: a file or an http(s) URL, JSON or YAML, validated and with every
 * `$ref` resolved — also across files and URLs — by `@readme/openapi-parser`. A schema that
 * contains itself (a tree, a linked list) becomes an object cycle here; the schema conversion
 * (schema.ts) cuts it where it recurs.
 *
 * OpenAPI 3.0 and 3.1 are served. Swagger 2.0 is refused with what to do: the parser validates
 * it but does not convert it, and the request model differs (formData, `in: body`).
 *
 * @module
 */
import { resolve } from 'node:path';
import { errorMessage } from '../errors.ts';

/** The parts of a document the connector reads (OpenAPI 3.0 and 3.1 agree on these). */
export interface OpenApiDocument {
  openapi: string;
  info?: { title?: string; version?: string; description?: string };
  servers?: Array<{ url: string; variables?: Record<string, { default: string }> }>;
  paths?: Record<string, Record<string, unknown>>;
  components?: { securitySchemes?: Record<string, unknown> };
  security?: Array<Record<string, string[]>>;
  webhooks?: Record<string, unknown>;
}

export interface LoadedDocument {
  document: OpenApiDocument;
  /** The file path or URL it was read from (relative server URLs resolve against it). */
  location: string;
}

/** Where the spec is: a URL as written, a file made absolute. */
export function specLocation(spec: string): string {
  return /^https?:\/\//i.test(spec) ? spec : resolve(spec);
}

/** Kept in a variable so a process that never reads a document never loads the parser. */
const parser = () => import('@readme/openapi-parser');

/**
 * Reads, validates and dereferences the document at `spec`.
 *
 * @throws Error naming the document and its first problems ("cannot read …", "not valid …").
 */
export async function loadDocument(spec: string, timeoutMs = 30_000): Promise<LoadedDocument> {
  const location = specLocation(spec);
  const { validate, dereference, compileErrors } = await parser();
  const options = {
    resolve: { http: { timeout: timeoutMs, redirects: 3 } },
    // Recursive schemas become object cycles; schema.ts cuts them where they recur.
    dereference: { circular: true },
    timeoutMs,
  };
  let validation: Awaited<ReturnType<typeof validate>>;
  try {
    validation = await validate(location, options);
  } catch (error) {
    throw new Error(`OpenAPI document ${location}: cannot read it: ${firstLine(error)}`);
  }
  if (validation.specification === 'Swagger') {
    throw new Error(
      `OpenAPI document ${location}: Swagger 2.0 is not supported; convert it to OpenAPI 3 ` +
        '(e.g. `npx swagger2openapi FILE -o openapi.yaml`) and point spec at the result',
    );
  }
  if (!validation.valid) {
    const details = compileErrors(validation)
      .split('\n')
      .map((line) => line.trim())
      // The parser adds code frames (`> 3 |   "info": {`); the messages say enough.
      .filter((line) => line && !/^>?\s*\d*\s*\|/.test(line))
      .slice(0, 6)
      .join('; ');
    throw new Error(`OpenAPI document ${location} is not valid: ${details}`);
  }
  let document: OpenApiDocument;
  try {
    document = (await dereference(location, options)) as unknown as OpenApiDocument;
  } catch (error) {
    throw new Error(`OpenAPI document ${location}: cannot resolve its $refs: ${firstLine(error)}`);
  }
  if (!/^3\.[01]\./.test(String(document.openapi))) {
    throw new Error(
      `OpenAPI document ${location}: version ${JSON.stringify(document.openapi)} is not supported (OpenAPI 3.0 or 3.1)`,
    );
  }
  return { document, location };
}

function firstLine(error: unknown): string {
  return errorMessage(error).split('\n')[0];
}
