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
  const identity = identityOf(auth);
  return identity && `${TAG[identity.field]}:${identity.value}`;
}
