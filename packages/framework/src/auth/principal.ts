/**
 * Who an authenticated caller is, decided here once for everything keyed by it: gate unlocks,
 * ipybox's default kernel and outputs, tasks, 2026 input rounds, the owner of a 2025 session,
 * the tool-call log.
 *
 * The identity is the first of the token's `sub`, `username` and `client_id` (RFC 7662 §2.2:
 * all optional) that is a non-empty string, tagged with its field so that user `alice` and
 * client `alice` stay two principals. The introspection verifier refuses a token that names none
 * of them (`introspection.ts`): two such tokens would otherwise be one caller, sharing unlocks,
 * kernels and tasks.
 *
 * @module
 */
import { userInfo } from 'node:os';
import type { Principal } from '../contract/principal.ts';

/** What this module reads of an SDK `AuthInfo` (the verifier puts `sub` and `username` in `extra`). */
export interface AuthIdentity {
  token?: unknown;
  clientId?: unknown;
  extra?: Record<string, unknown>;
}

/** The introspection fields that can name a caller, most specific first. */
export type PrincipalField = 'sub' | 'username' | 'client_id';

/** Tags of {@link principalKeyOf}; `sub` and `client` keep the keys gate state had before. */
const TAG: Record<PrincipalField, string> = { sub: 'sub', username: 'user', client_id: 'client' };

/** The tag of an API key's service account: `key:<name>`. */
const API_KEY_TAG = 'key';

const named = (value: unknown): value is string => typeof value === 'string' && value !== '';

/** The field naming the caller and its value; undefined when the authentication names nobody. */
export function identityOf(
  auth: AuthIdentity | undefined,
): { field: PrincipalField; value: string } | undefined {
  if (auth === undefined) return undefined;
  if (named(auth.extra?.sub)) return { field: 'sub', value: auth.extra.sub };
  if (named(auth.extra?.username)) return { field: 'username', value: auth.extra.username };
  if (named(auth.clientId)) return { field: 'client_id', value: auth.clientId };
  return undefined;
}

/**
 * The caller's key: `sub:<sub>`, `user:<username>` or `client:<client_id>`; undefined without
 * authentication, or when the authentication names nobody (only a verifier other than the
 * framework's can let such a caller in).
 */
export function principalKeyOf(auth: AuthIdentity | undefined): string | undefined {
  if (auth?.extra?.kind === 'api_key' && named(auth.extra.sub)) {
    return `${API_KEY_TAG}:${auth.extra.sub}`;
  }
  const identity = identityOf(auth);
  return identity && `${TAG[identity.field]}:${identity.value}`;
}

/** An HTTP caller that presented no credentials (OAuth off, loopback or allowed on purpose). */
export const ANONYMOUS_PRINCIPAL: Principal = Object.freeze({
  id: 'anonymous',
  kind: 'anonymous',
  scopes: [],
  groups: [],
  claims: {},
});

let local: Principal | undefined;

/** The user running this process, who owns a stdio connection. */
export function localPrincipal(): Principal {
  if (local) return local;
  let name = process.env.USER ?? 'local';
  try {
    name = userInfo().username;
  } catch {
    // No passwd entry for this uid (containers): the environment's name stands.
  }
  local = Object.freeze({
    id: `local:${name}`,
    kind: 'local',
    subject: name,
    scopes: [],
    groups: [],
    claims: {},
  });
  return local;
}

/** A claim's value as a list of strings: an array's strings, or a space/comma separated string. */
export function stringList(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  if (typeof value === 'string') return value.split(/[\s,]+/).filter(Boolean);
  return [];
}

/** One `Principal` per verified token answer (the SDK hands the same `AuthInfo` to each request). */
const principals = new WeakMap<object, Principal>();

/**
 * The principal an authentication names: `kind` from `extra.kind` (`api_key` for an API key),
 * else OAuth; groups and claims from `extra.claims`. Undefined without authentication, or when
 * it names nobody.
 */
export function principalFromAuth(
  auth: (AuthIdentity & { scopes?: readonly string[] }) | undefined,
): Principal | undefined {
  if (auth === undefined) return undefined;
  const known = principals.get(auth);
  if (known) return known;
  const id = principalKeyOf(auth);
  if (id === undefined) return undefined;
  const claims = (auth.extra?.claims as Record<string, unknown> | undefined) ?? {};
  const subject = identityOf(auth)?.field === 'client_id' ? undefined : identityOf(auth)?.value;
  const principal: Principal = Object.freeze({
    id,
    kind: auth.extra?.kind === 'api_key' ? 'api_key' : 'oauth',
    ...(subject !== undefined ? { subject } : {}),
    ...(named(auth.clientId) ? { client: auth.clientId } : {}),
    scopes: Object.freeze([...(auth.scopes ?? [])]),
    groups: Object.freeze(stringList(claims.groups)),
    claims: Object.freeze({ ...claims }),
  });
  principals.set(auth, principal);
  return principal;
}
