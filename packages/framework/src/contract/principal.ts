/**
 * `Principal`: who is calling, decided once where a request is authenticated (an OAuth token's
 * introspection, an API key, the local user of a stdio connection) and handed to every
 * interceptor, handler, log, metric and trace as `ctx.principal`. Nothing a client writes in
 * `_meta`, a header or an argument changes it.
 *
 * @module
 */

/** How the caller proved who it is. */
export type PrincipalKind = 'oauth' | 'api_key' | 'local' | 'anonymous';

export interface Principal {
  /**
   * The stable key everything per-caller is filed under: `sub:<subject>`, `user:<username>`,
   * `client:<client_id>` (OAuth), `key:<name>` (an API key's service account), `local:<user>`
   * (stdio) or `anonymous` (an unauthenticated HTTP caller).
   */
  readonly id: string;
  readonly kind: PrincipalKind;
  /** The token's subject (or username), the API key's name, the local user name. */
  readonly subject?: string;
  /** The OAuth client the token was issued to. */
  readonly client?: string;
  readonly scopes: readonly string[];
  /** The `groups` claim (or the API key's groups), as a list of strings. */
  readonly groups: readonly string[];
  /** The token's other claims (those `oauth_claims` keeps), or the API key's `claims`. */
  readonly claims: Readonly<Record<string, unknown>>;
}
