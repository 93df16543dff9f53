/**
 * The `gate:` configuration (the seed's shape), validated with zod. Values may be strings, as
 * `${VAR}` interpolation produces them ("7200", "true").
 *
 * @module
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../errors.ts';

import { SECRET_BACKENDS, type SecretSourceSettings } from '../secrets/backends.ts';

export { SECRET_BACKENDS, type SecretBackendKind } from '../secrets/backends.ts';

/**
 * The schemas, built on the first parse: a server without a gate (ipybox, any server that never
 * calls {@link parseGateConfig}) does not pay for them at start-up (~0.1 MB of heap and some
 * thirty zod constructions before its first answer; bench/startup.ts).
 */
function buildSchemas() {
  const bool = z.union([
    z.boolean(),
    z
      .string()
      .transform((s) => s.trim().toLowerCase())
      .pipe(z.enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off']))
      .transform((s) => ['true', '1', 'yes', 'on'].includes(s)),
  ]);
  const seconds = z.coerce
    .number({ error: 'expected a number of seconds' })
    .finite()
    .nonnegative('expected a number of seconds (0 or more)');
  const positiveSeconds = z.coerce
    .number({ error: 'expected a number of seconds' })
    .finite()
    .positive('expected a number of seconds greater than 0');

  const groupSchema = z
    .object({
      /** Seconds of inactivity after which an unlocked group locks again. */
      timeout: positiveSeconds.default(7200),
      /** Env variable name, file key or Vaultwarden item name. Default: the group's name. */
      secret_ref: z.string().min(1).optional(),
      /** Tools of any plugin that this group protects (enforced by the server's interceptor). */
      tools: z.array(z.string().min(1)).default([]),
    })
    .strict();

  const gateSchema = z
    .object({
      enabled: bool.default(true),
      secret_backend: z.enum(SECRET_BACKENDS).default('env'),
      secret_file: z.string().min(1).optional(),
      vaultwarden_url: z.string().min(1).optional(),
      vaultwarden_token: z.string().min(1).optional(),
      vaultwarden_cache_ttl: seconds.default(3600),
      /** Per-session state of a session silent this long is dropped. */
      session_idle_timeout: positiveSeconds.default(10_800),
      /** Accepted for compatibility with the Python original; blocked calls are always logged. */
      audit: z.record(z.string(), z.unknown()).optional(),
      groups: z.record(z.string().min(1), groupSchema.nullable()).default({}),
    })
    .strict();
  return { groupSchema, gateSchema };
}

let schemas: ReturnType<typeof buildSchemas> | undefined;
const gateSchemas = () => {
  schemas ??= buildSchemas();
  return schemas;
};

export interface GateGroupSettings {
  name: string;
  timeoutSeconds: number;
  secretRef: string;
  tools: readonly string[];
}

export interface GateSettings extends SecretSourceSettings {
  enabled: boolean;
  sessionIdleTimeoutSeconds: number;
  groups: ReadonlyMap<string, GateGroupSettings>;
}

/**
 * Validates `raw` (the `gate:` mapping, or undefined for "no gate") into settings.
 *
 * @throws ConfigError listing every problem as `gate.<dotted.key>: <message>`.
 */
export function parseGateConfig(raw: unknown, home = homedir()): GateSettings {
  const { groupSchema, gateSchema } = gateSchemas();
  const result = gateSchema.safeParse(raw ?? { enabled: false });
  const issues = result.success
    ? []
    : result.error.issues.map((issue) => {
        const key = ['gate', ...issue.path].join('.');
        // Never echo a value: this is the mapping that may hold the Vaultwarden token.
        const message =
          issue.code === 'unrecognized_keys'
            ? `unknown key(s) ${issue.keys.join(', ')}`
            : issue.message;
        return `${key}: ${message}`;
      });
  const written = (raw ?? {}) as Record<string, unknown>;
  if (written.secret_backend === 'vaultwarden') {
    for (const key of ['vaultwarden_url', 'vaultwarden_token']) {
      if (!written[key]) issues.push(`gate.${key}: required when secret_backend is vaultwarden`);
    }
  }
  if (!result.success || issues.length > 0) throw new ConfigError(issues);
  const gate = result.data;
  const expand = (path: string) =>
    path === '~' || path.startsWith('~/') ? join(home, path.slice(1)) : path;
  return {
    enabled: gate.enabled,
    backend: gate.secret_backend,
    secretFile: expand(gate.secret_file ?? '~/.mcp_gate_secrets'),
    vaultwardenUrl: gate.vaultwarden_url,
    vaultwardenToken: gate.vaultwarden_token,
    vaultwardenCacheTtlSeconds: gate.vaultwarden_cache_ttl,
    sessionIdleTimeoutSeconds: gate.session_idle_timeout,
    groups: new Map(
      Object.entries(gate.groups).map(([name, group]) => {
        const g = group ?? groupSchema.parse({});
        return [
          name,
          { name, timeoutSeconds: g.timeout, secretRef: g.secret_ref ?? name, tools: g.tools },
        ];
      }),
    ),
  };
}
