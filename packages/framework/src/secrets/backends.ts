/**
 * Where secrets come from: environment variables, a `key=value` file (re-read when it changes),
 * or a Vaultwarden / Bitwarden `bw serve` API (cached for a TTL). One implementation for every
 * reader — the TOTP gate's group secrets and per-user upstream credentials (`${secret:NAME}`).
 * Every failure is a `SecretUnavailableError` whose message names the reference, never the
 * secret or a token.
 *
 * @module
 */
import { readFile, stat } from 'node:fs/promises';
import { checkCredentialEndpoint, trimTrailingSlash } from '../auth/endpoint.ts';
import { ConfigError } from '../errors.ts';
import type { Logger } from '../logging/index.ts';

/** Milliseconds since the epoch. */
export type Clock = () => number;

export interface SecretBackend {
  /** The secret stored under `ref`. */
  secret(ref: string): Promise<string>;
}

export const SECRET_BACKENDS = ['env', 'file', 'vaultwarden'] as const;
export type SecretBackendKind = (typeof SECRET_BACKENDS)[number];

/** Which backend to read and how to reach it (the gate's settings are one such). */
export interface SecretSourceSettings {
  backend: SecretBackendKind;
  secretFile: string;
  vaultwardenUrl: string | undefined;
  vaultwardenToken: string | undefined;
  vaultwardenCacheTtlSeconds: number;
}

export class SecretUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretUnavailableError';
  }
}

/** Secrets in environment variables; `ref` is the variable's name. */
export function envSecrets(env: NodeJS.ProcessEnv = process.env): SecretBackend {
  return {
    async secret(ref) {
      const value = env[ref];
      if (!value) throw new SecretUnavailableError(`Environment variable '${ref}' is not set.`);
      return value;
    },
  };
}

/**
 * Secrets in a file of `key=value` lines (`#` starts a comment). Parsed again only when the
 * file's mtime or size changes, so a rotated secret takes effect on the next unlock.
 */
export function fileSecrets(path: string, logger: Logger): SecretBackend {
  let cached: { mtimeMs: number; size: number; entries: Map<string, string> } | undefined;
  return {
    async secret(ref) {
      let info: Awaited<ReturnType<typeof stat>>;
      try {
        info = await stat(path);
        if (cached === undefined || cached.mtimeMs !== info.mtimeMs || cached.size !== info.size) {
          if ((info.mode & 0o077) !== 0) {
            logger.warn(
              `secret file ${path} is readable by group or others (mode ${(info.mode & 0o777).toString(8)}); run chmod 600 ${path}`,
            );
          }
          cached = {
            mtimeMs: info.mtimeMs,
            size: info.size,
            entries: parseSecretFile(await readFile(path, 'utf8')),
          };
        }
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? 'read error';
        throw new SecretUnavailableError(`Secret file '${path}' cannot be read (${code}).`);
      }
      const value = cached.entries.get(ref);
      if (!value) throw new SecretUnavailableError(`No secret '${ref}' in '${path}'.`);
      return value;
    },
  };
}

/** `key=value` lines; blank lines and `#` comments skipped; optional quotes around the value. */
export function parseSecretFile(text: string): Map<string, string> {
  const entries = new Map<string, string>();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    const key = line.slice(0, eq).trim();
    const value = line
      .slice(eq + 1)
      .trim()
      .replace(/^(['"])(.*)\1$/, '$2');
    entries.set(key, value);
  }
  return entries;
}

export interface VaultwardenOptions {
  url: string;
  token: string;
  /** Seconds a fetched secret is reused; 0 fetches every time. */
  cacheTtlSeconds: number;
  clock: Clock;
  /** Request timeout. Default 10 s. */
  timeoutMs?: number;
}

/**
 * Secrets in Vaultwarden items, read through the Bitwarden CLI's `bw serve` API:
 * `GET {url}/api/list/object/items?search=<ref>` with a Bearer token; the item whose `name` is
 * exactly `ref` gives its `notes`, else its `login.password`.
 */
export function vaultwardenSecrets(
  options: VaultwardenOptions,
  label = 'gate.vaultwarden_url',
): SecretBackend {
  const checked = checkCredentialEndpoint(options.url);
  if ('reason' in checked) throw new ConfigError([`${label}: ${checked.reason}`]);
  const base = trimTrailingSlash(checked.url);
  const cache = new Map<string, { value: string; until: number }>();
  return {
    async secret(ref) {
      const now = options.clock();
      const hit = cache.get(ref);
      if (hit !== undefined && hit.until > now) return hit.value;
      const value = await fetchItemSecret(base, ref, options);
      if (options.cacheTtlSeconds > 0) {
        cache.set(ref, { value, until: now + options.cacheTtlSeconds * 1000 });
      }
      return value;
    },
  };
}

async function fetchItemSecret(base: string, ref: string, options: VaultwardenOptions) {
  let response: Response;
  try {
    response = await fetch(`${base}/api/list/object/items?search=${encodeURIComponent(ref)}`, {
      headers: { authorization: `Bearer ${options.token}`, accept: 'application/json' },
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
  } catch (error) {
    const why =
      error instanceof Error && error.name === 'TimeoutError' ? 'timed out' : 'unreachable';
    throw new SecretUnavailableError(`Vaultwarden is ${why}.`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new SecretUnavailableError(`Vaultwarden answered HTTP ${response.status}.`);
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw new SecretUnavailableError('Vaultwarden answered something that is not JSON.');
  }
  const item = itemsOf(body).find((candidate) => candidate?.name === ref);
  const value = item?.notes || item?.login?.password;
  if (typeof value !== 'string' || value === '') {
    throw new SecretUnavailableError(
      `No Vaultwarden item named '${ref}' with notes or a password.`,
    );
  }
  return value.trim();
}

interface VaultItem {
  name?: unknown;
  notes?: unknown;
  login?: { password?: unknown } | null;
}

/** `bw serve` wraps lists as `{success, data: {object: 'list', data: [...]}}`; accept bare lists too. */
function itemsOf(body: unknown): VaultItem[] {
  const b = body as { data?: { data?: unknown } | unknown } | undefined;
  const candidates = [body, b?.data, (b?.data as { data?: unknown } | undefined)?.data];
  const list = candidates.find(Array.isArray);
  return (list ?? []).filter((x): x is VaultItem => x !== null && typeof x === 'object');
}

/**
 * The backend the settings name. `section` names the settings in messages (`gate`, `secrets`).
 */
export function secretBackendFor(
  settings: SecretSourceSettings,
  deps: { logger: Logger; clock: Clock; env?: NodeJS.ProcessEnv },
  section = 'gate',
): SecretBackend {
  switch (settings.backend) {
    case 'env':
      return envSecrets(deps.env);
    case 'file':
      return fileSecrets(settings.secretFile, deps.logger);
    case 'vaultwarden':
      return vaultwardenSecrets(
        {
          url: settings.vaultwardenUrl!,
          token: settings.vaultwardenToken!,
          cacheTtlSeconds: settings.vaultwardenCacheTtlSeconds,
          clock: deps.clock,
        },
        `${section}.vaultwarden_url`,
      );
  }
}
