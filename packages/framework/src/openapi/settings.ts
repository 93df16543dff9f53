/**
 * The `openapi:` settings of a plugin entry, checked once with messages that name the key:
 *
 * ```yaml
 * plugins:
 *   pets:
 *     openapi:
 *       spec: ./petstore.yaml          # a file (relative to the working directory) or a URL
 *       base_url: https://api.example.com/v1   # default: the document's first server
 *       include: ["pet*", "tag:store"] # operationId / tool-name globs, or tag:NAME
 *       exclude: [deletePet]
 *       timeout: 30                    # seconds per call
 *       max_response_bytes: 1048576
 *       auth: { api_key: { key: "${PETS_KEY}" } }   # by the document's security scheme names
 *       operations: { listPets: { name: list_pets, description: … } }
 * ```
 *
 * Auth values keep their `${VAR}` and `${secret:NAME}` placeholders here (the config loader
 * leaves them as written); they are resolved when the plugin registers (auth.ts).
 *
 * @module
 */
import { z } from 'zod';
import { ConfigError } from '../errors.ts';

/** Credentials for one security scheme, by the scheme's kind (see auth.ts). */
export interface SchemeCredentials {
  /** apiKey schemes. */
  key?: string;
  /** http bearer. */
  token?: string;
  /** http basic. */
  username?: string;
  password?: string;
  /** oauth2 client credentials. */
  client_id?: string;
  client_secret?: string;
  scopes?: string[];
  /** Overrides the document's `tokenUrl`. */
  token_url?: string;
}

export interface OperationOverride {
  name?: string;
  description?: string;
}

export interface OpenApiSettings {
  spec: string;
  baseUrl?: string;
  include: string[];
  exclude: string[];
  timeoutMs: number;
  maxResponseBytes: number;
  auth: Record<string, SchemeCredentials>;
  operations: Record<string, OperationOverride>;
}

const DEFAULT_TIMEOUT_S = 30;
const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;

const schema = () => {
  const text = z.string({ error: 'expected a string' }).min(1, 'expected a non-empty string');
  const seconds = z.coerce
    .number({ error: 'expected a number of seconds' })
    .positive('expected a number of seconds greater than 0');
  return z
    .object({
      spec: text,
      base_url: z.url({ error: 'expected an http(s) URL' }).optional(),
      include: z.array(text, { error: 'expected a list of globs' }).optional(),
      exclude: z.array(text, { error: 'expected a list of globs' }).optional(),
      timeout: seconds.optional(),
      max_response_bytes: z.coerce
        .number({ error: 'expected a number of bytes' })
        .int('expected a whole number of bytes')
        .min(1024, 'expected 1024 bytes or more')
        .optional(),
      auth: z
        .record(
          z.string(),
          z
            .object({
              key: text.optional(),
              token: text.optional(),
              username: text.optional(),
              password: z.string().optional(),
              client_id: text.optional(),
              client_secret: text.optional(),
              scopes: z.array(text).optional(),
              token_url: z.url({ error: 'expected a URL' }).optional(),
            })
            .strict(),
          { error: 'expected a mapping of security scheme names to credentials' },
        )
        .optional(),
      operations: z
        .record(
          z.string(),
          z.object({ name: text.optional(), description: text.optional() }).strict(),
          { error: 'expected a mapping of operationIds to {name, description}' },
        )
        .optional(),
    })
    .strict();
};

/**
 * Validates `raw`, the entry's `openapi:` value.
 *
 * @param label names the entry in messages (`plugins.pets.openapi`).
 * @throws ConfigError with one `label.key: problem` line per problem, never a value.
 */
export function parseOpenApiSettings(raw: unknown, label: string): OpenApiSettings {
  const input = typeof raw === 'string' ? { spec: raw } : raw;
  const result = schema().safeParse(input);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => {
        const key = [label, ...issue.path].join('.');
        if (issue.code === 'unrecognized_keys') {
          return `${key}: unknown key(s) ${issue.keys.join(', ')}`;
        }
        return `${key}: ${issue.message}`;
      }),
    );
  }
  const s = result.data;
  return {
    spec: s.spec,
    baseUrl: s.base_url,
    include: s.include ?? [],
    exclude: s.exclude ?? [],
    timeoutMs: (s.timeout ?? DEFAULT_TIMEOUT_S) * 1000,
    maxResponseBytes: s.max_response_bytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    auth: s.auth ?? {},
    operations: s.operations ?? {},
  };
}
