/**
 * API keys: service accounts for teams without an identity provider. The configuration holds
 * each key's SHA-256, never the key; a bearer token on the MCP paths is hashed and compared with
 * every stored digest in constant time, before OAuth introspection is asked. A match is the
 * principal `key:<name>` (kind `api_key`) with the key's groups, claims and scopes, which views
 * and policy read as they read an OAuth caller's.
 *
 * ```yaml
 * api_keys:
 *   - name: ci-bot              # principal key:ci-bot
 *     sha256: 9f86d0…           # printf %s "$KEY" | sha256sum, or: mcp-proxy api-key new
 *     groups: [ci]
 *     claims: { tenant: acme }
 *     scopes: [tools]
 * ```
 *
 * With keys and no OAuth, a request without a valid key is refused (401); with OAuth too, a
 * token that is no key goes on to introspection. `oauth_required_scopes` applies to keys alike.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { ConfigError } from '../errors.ts';
import { sendJson } from '../http/json.ts';
import { nodeCrypto } from '../lazy.ts';
import { publishRejection } from './introspection.ts';
import type { HttpMiddleware as Middleware } from './oauth.ts';

/** One configured key, as verified: its digest and what it grants. */
export interface ApiKey {
  readonly name: string;
  /** The key's SHA-256 (32 bytes). */
  readonly digest: Buffer;
  readonly groups: readonly string[];
  readonly claims: Readonly<Record<string, unknown>>;
  readonly scopes: readonly string[];
}

/** A key's name: the principal `key:<name>`, in logs and policy rules. */
export const API_KEY_NAME = /^[A-Za-z0-9][\w.@-]{0,63}$/;

const FIELDS = 'name, sha256, groups, claims, scopes';

function buildSchema() {
  const strings = z.array(z.string().min(1), { error: 'expected a list of names' });
  const entry = z
    .object(
      {
        name: z
          .string({ error: 'every API key needs a name' })
          .regex(API_KEY_NAME, 'expected a name of letters, digits, _ . @ - (at most 64)'),
        // The value is never echoed: someone may have pasted the key itself here.
        sha256: z
          .string({ error: 'expected the key’s SHA-256 as 64 hex digits' })
          .regex(/^[0-9a-fA-F]{64}$/, {
            error: (issue) =>
              `expected the key’s SHA-256 as 64 hex digits (printf %s "$KEY" | sha256sum), got ${String(issue.input).length} characters`,
          }),
        groups: strings.optional(),
        claims: z
          .record(z.string(), z.unknown(), { error: 'expected a mapping of claims' })
          .optional(),
        scopes: strings.optional(),
      },
      {
        error: (issue) =>
          issue.code === 'unrecognized_keys'
            ? `unknown ${issue.keys.join(', ')}: expected ${FIELDS} (the key itself never goes in the configuration, only its sha256)`
            : `expected a mapping with ${FIELDS}`,
      },
    )
    .strict();
  return z.array(entry, { error: `expected a list of API keys (${FIELDS})` });
}

let schema: ReturnType<typeof buildSchema> | undefined;

/**
 * The keys `api_keys` lists; none when it is absent.
 *
 * @throws ConfigError naming each bad entry (`api_keys[0].sha256: expected …`), two keys of one
 *   name or one digest.
 */
export function parseApiKeys(written: unknown): readonly ApiKey[] {
  if (written === undefined || written === null) return [];
  schema ??= buildSchema();
  const parsed = schema.safeParse(written);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => {
        const [index, ...rest] = issue.path.map(String);
        const where = `api_keys${index === undefined ? '' : `[${index}]`}${rest.map((k) => `.${k}`).join('')}`;
        return `${where}: ${issue.message}`;
      }),
    );
  }
  const problems: string[] = [];
  const names = new Set<string>();
  const digests = new Map<string, string>();
  const keys = parsed.data.map((entry): ApiKey => {
    const digest = entry.sha256.toLowerCase();
    if (names.has(entry.name)) problems.push(`api_keys: two keys are named "${entry.name}"`);
    const twin = digests.get(digest);
    if (twin !== undefined) problems.push(`api_keys: ${twin} and ${entry.name} have one sha256`);
    names.add(entry.name);
    digests.set(digest, entry.name);
    return Object.freeze({
      name: entry.name,
      digest: Buffer.from(digest, 'hex'),
      groups: Object.freeze(entry.groups ?? []),
      claims: Object.freeze(entry.claims ?? {}),
      scopes: Object.freeze(entry.scopes ?? []),
    });
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return keys;
}

const sha256 = (text: string): Buffer => nodeCrypto().createHash('sha256').update(text).digest();

/** A new random key and its SHA-256 (hex), for the configuration. The key is shown once. */
export function newApiKey(): { key: string; sha256: string } {
  const key = `mcpbox_${nodeCrypto().randomBytes(32).toString('base64url')}`;
  return { key, sha256: sha256(key).toString('hex') };
}

/**
 * What a key authenticates as: `principalFromAuth` reads `extra.kind` and `extra.sub` (the
 * principal `key:<name>`) and `extra.claims` (groups and claims). The key itself is not kept:
 * nothing after this middleware needs it, so nothing can pass it on.
 */
function authInfoOf(key: ApiKey): AuthInfo {
  return {
    token: '',
    clientId: '',
    scopes: [...key.scopes],
    extra: { kind: 'api_key', sub: key.name, claims: { ...key.claims, groups: [...key.groups] } },
  };
}

/** What a reload of the keys did, by key name (never a digest). */
export interface KeyChanges {
  added: string[];
  removed: string[];
  changed: string[];
}

interface HeldKey {
  name: string;
  digest: Buffer;
  auth: AuthInfo;
  /** The digest and what the key grants, to tell a changed key from an unchanged one. */
  grants: string;
}

function held(key: ApiKey): HeldKey {
  const { name, digest, groups, claims, scopes } = key;
  // One AuthInfo per key, so the principal made of it is made once (principal.ts caches).
  const grants = JSON.stringify([digest.toString('hex'), groups, claims, scopes]);
  return { name, digest, auth: authInfoOf(key), grants };
}

/**
 * The configured keys, matched in constant time. `replace` swaps them while the server runs
 * (`reload-policy`): a revoked key is refused from the next request on, sessions it opened too,
 * since every request is authenticated again.
 */
export class ApiKeys {
  #keys: readonly HeldKey[];

  constructor(keys: readonly ApiKey[]) {
    this.#keys = keys.map(held);
  }

  get size(): number {
    return this.#keys.length;
  }

  /** The keys' names (principals `key:<name>`), as configured. */
  get names(): string[] {
    return this.#keys.map((key) => key.name);
  }

  /** Serves `keys` from now on; says which names came, went or now grant something else. */
  replace(keys: readonly ApiKey[]): KeyChanges {
    const before = new Map(this.#keys.map((key) => [key.name, key.grants]));
    const after = keys.map(held);
    this.#keys = after;
    const now = new Set(after.map((key) => key.name));
    return {
      added: after.filter((key) => !before.has(key.name)).map((key) => key.name),
      removed: [...before.keys()].filter((name) => !now.has(name)),
      changed: after
        .filter((key) => before.has(key.name) && before.get(key.name) !== key.grants)
        .map((key) => key.name),
    };
  }

  /**
   * The authentication of the key `token` is, or undefined. Every digest is compared, whichever
   * matches, so the time taken says nothing about which key came close.
   */
  match(token: string): AuthInfo | undefined {
    const given = sha256(token);
    let found: AuthInfo | undefined;
    for (const key of this.#keys) {
      if (nodeCrypto().timingSafeEqual(given, key.digest)) found ??= key.auth;
    }
    return found;
  }
}

/** The bearer token of an `Authorization` header, or why there is none. */
function bearerOf(header: string | undefined): string | 'missing' | 'malformed' {
  if (header === undefined) return 'missing';
  const match = /^bearer (\S+)$/i.exec(header.trim());
  return match ? (match[1] as string) : 'malformed';
}

const REFUSALS = {
  missing: 'Missing Authorization header',
  malformed: "Invalid Authorization header format, expected 'Bearer TOKEN'",
  invalid: 'Invalid API key',
} as const;

/**
 * A refusal as the SDK's bearer check words it: `WWW-Authenticate` (naming the required scopes,
 * when there are any) and an OAuth error body.
 */
function refuse(
  res: ServerResponse,
  status: 401 | 403,
  error: string,
  description: string,
  scopes: readonly string[],
) {
  const scope = scopes.length > 0 ? `, scope="${scopes.join(' ')}"` : '';
  sendJson(
    res,
    status,
    { error, error_description: description },
    { 'www-authenticate': `Bearer error="${error}", error_description="${description}"${scope}` },
  );
}

/** Runs `handlers` one after another, as Express would, then `done`. */
function chain(
  handlers: readonly Middleware[],
  req: IncomingMessage,
  res: ServerResponse,
  done: (error?: unknown) => void,
): void {
  const step =
    (i: number) =>
    (error?: unknown): void => {
      if (error !== undefined || i === handlers.length) {
        done(error);
        return;
      }
      // Each handler answers its own failures (the SDK's bearer check does).
      void (handlers[i] as Middleware)(req, res, step(i + 1));
    };
  step(0)();
}

/**
 * The middleware in front of the MCP paths: a bearer token that is one of `keys` authenticates
 * (if it holds `requiredScopes`, else 403); any other request goes to `oauth` when given, and is
 * refused (401) when not.
 */
export function apiKeyMiddleware(
  keys: ApiKeys,
  options: { requiredScopes: readonly string[]; oauth?: readonly Middleware[] },
): Middleware {
  const { requiredScopes, oauth } = options;
  return (req, res, next) => {
    const bearer = bearerOf(req.headers.authorization);
    const auth = bearer === 'missing' || bearer === 'malformed' ? undefined : keys.match(bearer);
    if (auth !== undefined) {
      if (!requiredScopes.every((scope) => auth.scopes.includes(scope))) {
        publishRejection('insufficient_scope');
        return refuse(res, 403, 'insufficient_scope', 'Insufficient scope', requiredScopes);
      }
      (req as IncomingMessage & { auth?: AuthInfo }).auth = auth;
      return next();
    }
    if (oauth !== undefined) return chain(oauth, req, res, next);
    const why = bearer === 'missing' || bearer === 'malformed' ? bearer : 'invalid';
    publishRejection(why === 'missing' ? 'missing_token' : 'invalid_token');
    refuse(res, 401, 'invalid_token', REFUSALS[why], requiredScopes);
  };
}
