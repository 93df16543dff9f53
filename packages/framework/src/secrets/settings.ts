/**
 * The `secrets:` configuration: which backend `${secret:NAME}` references in a mirrored
 * server's headers are read from (per-user upstream credentials). The same three backends as the
 * TOTP gate's (`backends.ts`), with the gate's key names minus their `secret_` prefix:
 *
 * ```yaml
 * secrets:
 *   backend: file            # env | file | vaultwarden; default file
 *   file: ~/.mcp_secrets     # key=value lines; the default
 * ```
 *
 * @module
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../errors.ts';
import { SECRET_BACKENDS, type SecretSourceSettings } from './backends.ts';

/** The default secret file: `~/.mcp_secrets`. */
export const DEFAULT_SECRET_FILE = '~/.mcp_secrets';

const schema = () =>
  z
    .object({
      backend: z.enum(SECRET_BACKENDS).default('file'),
      file: z.string().min(1).optional(),
      vaultwarden_url: z.string().min(1).optional(),
      vaultwarden_token: z.string().min(1).optional(),
      vaultwarden_cache_ttl: z.coerce
        .number({ error: 'expected a number of seconds' })
        .finite()
        .nonnegative('expected a number of seconds (0 or more)')
        .default(3600),
    })
    .strict();

/**
 * Validates `raw` (the `secrets:` mapping; undefined for the defaults).
 *
 * @throws ConfigError listing every problem as `secrets.<key>: <message>`, never a value.
 */
export function parseSecretsConfig(raw: unknown, home = homedir()): SecretSourceSettings {
  const result = schema().safeParse(raw ?? {});
  const issues = result.success
    ? []
    : result.error.issues.map((issue) => {
        const key = ['secrets', ...issue.path].join('.');
        const message =
          issue.code === 'unrecognized_keys'
            ? `unknown key(s) ${issue.keys.join(', ')}`
            : issue.message;
        return `${key}: ${message}`;
      });
  if (result.success && result.data.backend === 'vaultwarden') {
    for (const key of ['vaultwarden_url', 'vaultwarden_token'] as const) {
      if (!result.data[key]) issues.push(`secrets.${key}: required when backend is vaultwarden`);
    }
  }
  if (!result.success || issues.length > 0) throw new ConfigError(issues);
  const written = result.data;
  const file = written.file ?? DEFAULT_SECRET_FILE;
  return {
    backend: written.backend,
    secretFile: file === '~' || file.startsWith('~/') ? join(home, file.slice(1)) : file,
    vaultwardenUrl: written.vaultwarden_url,
    vaultwardenToken: written.vaultwarden_token,
    vaultwardenCacheTtlSeconds: written.vaultwarden_cache_ttl,
  };
}
