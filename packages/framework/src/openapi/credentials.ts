/**
 * The `auth:` values of an `openapi:` entry, resolved: `${VAR}` from the environment and
 * `${secret:NAME}` from the `secrets:` backend — the same references as a mirrored server's
 * headers. Every resolved value is remembered as a secret (the tool-call logs redact it) until
 * `forget()`, and `scrub()` takes the values out of texts the plugin hands back (an API that
 * repeats a wrong key in its error).
 *
 * Per-caller credentials (`{principal}` in a secret name) are refused with what works instead:
 * the plugin's calls use one set of credentials.
 *
 * @module
 */
import type { Logger } from '../contract/logger.ts';
import { secretBackendFor } from '../secrets/backends.ts';
import { namesPrincipal, resolveReferences, secretReferences } from '../secrets/references.ts';
import { parseSecretsConfig } from '../secrets/settings.ts';
import { rememberSecretValues } from '../toollog/secretValues.ts';
import type { SchemeCredentials } from './settings.ts';

export interface ResolvedCredentials {
  credentials: Record<string, SchemeCredentials>;
  /** Ends the redaction of the values. */
  forget(): void;
  /** `text` with every resolved value replaced by `[redacted]`. */
  scrub(text: string): string;
}

export async function resolveCredentials(
  auth: Record<string, SchemeCredentials>,
  options: {
    label: string;
    env: Readonly<Record<string, string | undefined>>;
    secrets: Record<string, unknown> | undefined;
    logger: Logger;
  },
): Promise<ResolvedCredentials> {
  const texts = Object.values(auth)
    .flatMap((c) => Object.values(c))
    .flat()
    .map(String);
  const usesBackend = texts.some((text) => secretReferences(text).length > 0);
  const settings = usesBackend ? parseSecretsConfig(options.secrets) : undefined;
  const source = {
    env: options.env,
    backend: settings
      ? secretBackendFor(
          settings,
          { logger: options.logger, clock: Date.now, env: options.env as NodeJS.ProcessEnv },
          'secrets',
        )
      : { secret: async () => '' },
    backendName: settings ? `the ${settings.backend} secret backend` : 'no secret backend',
  };
  const credentials: Record<string, SchemeCredentials> = {};
  const values: Record<string, string> = {};
  for (const [scheme, given] of Object.entries(auth)) {
    const resolved: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(given)) {
      const where = `${options.label}.auth.${scheme}.${key}`;
      if (typeof value !== 'string') {
        resolved[key] = value;
        continue;
      }
      if (namesPrincipal(value)) {
        throw new Error(
          `${where}: per-caller secrets ({principal}, {subject}) are not supported for OpenAPI plugins yet; name one secret`,
        );
      }
      resolved[key] = await resolveReferences(value, where, source);
      // Names and scopes are not secrets; keys, tokens, passwords and client secrets are.
      if (['key', 'token', 'password', 'client_secret'].includes(key)) {
        values[where] = resolved[key] as string;
      }
    }
    credentials[scheme] = resolved as SchemeCredentials;
  }
  const forget = rememberSecretValues(values);
  const secrets = Object.values(values)
    .filter((value) => value.length >= 4)
    .sort((a, b) => b.length - a.length);
  return {
    credentials,
    forget,
    scrub: (text) => secrets.reduce((out, secret) => out.replaceAll(secret, '[redacted]'), text),
  };
}
