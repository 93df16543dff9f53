/**
 * `IntrospectionTokenVerifier`: the SDK's `OAuthTokenVerifier`, answered by RFC 7662 token
 * introspection (`POST {server}/introspect`, form field `token`).
 *
 * Fixes over the Python original: a cached token is never trusted past its own `exp` (the cache
 * entry ends at `min(now + ttl, exp)`, and `exp` is checked on every hit); the cache key is the
 * full SHA-256 of the token (no 64-bit truncation); a failed, slow or non-JSON introspection
 * rejects and is never cached. The answer's claims are checked, not trusted: a token whose
 * `exp`, `nbf` or `iat` is not a number, whose `nbf` is still ahead, or that names no principal
 * (no `sub`, `username` or `client_id`, see `principal.ts`) is refused with a 401 saying so.
 *
 * @module
 */
import { channel } from 'node:diagnostics_channel';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type {
  InvalidTokenError,
  OAuthTokenVerifier,
} from '@modelcontextprotocol/server-legacy/auth';
import { legacyAuth, nodeCrypto } from '../lazy.ts';
import type { Logger } from '../logging/index.ts';
import { IntrospectionCache } from '../state/introspectionCache.ts';
import { identityOf } from './principal.ts';

/** Milliseconds since the epoch. */
export type Clock = () => number;

/** Why a token was refused; published on `mcpbox:oauth` for the metrics. */
export type OAuthRejectionReason =
  | 'missing_token'
  | 'invalid_token'
  | 'inactive'
  | 'expired'
  | 'not_yet_valid'
  | 'invalid_claims'
  | 'no_principal'
  | 'insufficient_scope'
  | 'introspection_error';

export const OAUTH_CHANNEL = 'mcpbox:oauth';
const oauthChannel = channel(OAUTH_CHANNEL);

/** Publishes one rejection for whoever counts them. */
export function publishRejection(reason: OAuthRejectionReason): void {
  if (oauthChannel.hasSubscribers) oauthChannel.publish({ reason });
}

export interface IntrospectionOptions {
  /** The RFC 7662 endpoint, already checked by the SSRF guard. */
  introspectionUrl: string;
  /** Seconds a positive answer is reused (never past the token's `exp`); 0 disables. */
  cacheTtlSeconds: number;
  /** Per-request timeout. Default 10 000 ms. */
  timeoutMs?: number;
  clock?: Clock;
  logger: Logger;
  /** Cap on cached tokens; the oldest go first. Default 10 000. */
  maxCacheEntries?: number;
}

/** RFC 7662's own fields: what the token is, not claims about its holder. */
const TOKEN_FIELDS = new Set([
  'active',
  'scope',
  'client_id',
  'username',
  'token_type',
  'exp',
  'iat',
  'nbf',
  'sub',
  'aud',
  'iss',
  'jti',
]);

/** The most JSON of claims kept per token: policy reads them, a flood must not fill the cache. */
const MAX_CLAIMS_BYTES = 16 * 1024;

/**
 * The answer's other members (`groups`, `tenant`, `projects`…): what policy rules read as
 * `principal.claims` (and `principal.groups`). Dropped whole when larger than
 * {@link MAX_CLAIMS_BYTES}, so a rule sees all claims or none, never a cut list.
 */
function claimsOf(answer: IntrospectionResponse): Record<string, unknown> {
  const claims: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(answer)) {
    if (!TOKEN_FIELDS.has(name)) claims[name] = value;
  }
  return JSON.stringify(claims).length > MAX_CLAIMS_BYTES ? {} : claims;
}

/** An inactive token never becomes active again; remember that briefly to spare the server. */
const NEGATIVE_CACHE_SECONDS = 60;

/** Without an `exp`, report an expiry this far ahead when the cache is off (the SDK needs one). */
const NO_EXP_VALIDITY_SECONDS = 60;

/** What an RFC 7662 answer may hold (all optional but `active`). */
interface IntrospectionResponse {
  active?: unknown;
  scope?: unknown;
  client_id?: unknown;
  username?: unknown;
  sub?: unknown;
  exp?: unknown;
  nbf?: unknown;
  iat?: unknown;
  aud?: unknown;
  iss?: unknown;
}

export class IntrospectionTokenVerifier implements OAuthTokenVerifier {
  readonly #url: string;
  readonly #ttlMs: number;
  readonly #timeoutMs: number;
  readonly #clock: Clock;
  readonly #logger: Logger;
  /** This process's answers, then the replicas' (`state/introspectionCache.ts`). */
  readonly #cache: IntrospectionCache;
  /** So an outage is logged once when it starts and once when it ends, not per request. */
  #serverFailing = false;
  #warnedNoPrincipal = false;
  /** Number of introspection requests sent (for status output and tests). */
  requests = 0;

  constructor(options: IntrospectionOptions) {
    this.#url = options.introspectionUrl;
    this.#ttlMs = options.cacheTtlSeconds * 1000;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#clock = options.clock ?? Date.now;
    this.#logger = options.logger;
    this.#cache = new IntrospectionCache({
      maxEntries: options.maxCacheEntries,
      clock: this.#clock,
    });
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const key = nodeCrypto().createHash('sha256').update(token).digest('hex');
    const now = this.#clock();
    const cached = this.#ttlMs > 0 ? await this.#cache.get(key, now) : undefined;
    if (cached !== undefined) {
      if (cached.kind === 'inactive') throw this.#reject('inactive', 'Token is not active');
      return { ...cached.info, token };
    }

    const answer = await this.#introspect(token);
    const checkedAt = this.#clock();
    if (answer.active !== true) {
      if (this.#ttlMs > 0) {
        const until = checkedAt + Math.min(this.#ttlMs, NEGATIVE_CACHE_SECONDS * 1000);
        this.#cache.set(key, { kind: 'inactive', until }, checkedAt);
      }
      throw this.#reject('inactive', 'Token is not active');
    }
    const claims = checkClaims(answer, checkedAt);
    if ('reason' in claims) {
      if (claims.reason === 'no_principal') this.#warnNoPrincipal();
      throw this.#reject(claims.reason, claims.message);
    }
    const { expMs } = claims;
    const until = Math.min(checkedAt + this.#ttlMs, expMs ?? Number.POSITIVE_INFINITY);
    const info: AuthInfo = {
      token,
      // The client, when the answer names one; who the caller is comes from `principal.ts`.
      clientId: typeof answer.client_id === 'string' ? answer.client_id : '',
      scopes: typeof answer.scope === 'string' ? answer.scope.split(' ').filter(Boolean) : [],
      expiresAt: Math.floor(
        (expMs ?? (this.#ttlMs > 0 ? until : checkedAt + NO_EXP_VALIDITY_SECONDS * 1000)) / 1000,
      ),
      extra: {
        ...(typeof answer.sub === 'string' ? { sub: answer.sub } : {}),
        ...(typeof answer.username === 'string' ? { username: answer.username } : {}),
        ...(answer.aud !== undefined ? { aud: answer.aud } : {}),
        ...(typeof answer.iss === 'string' ? { iss: answer.iss } : {}),
        claims: claimsOf(answer),
      },
    };
    if (this.#ttlMs > 0) {
      this.#cache.set(key, { kind: 'active', info: withoutToken(info), until }, checkedAt);
    }
    return info;
  }

  /** Forgets every cached answer (e.g. after revoking tokens at the authorization server). */
  clearCache(): void {
    this.#cache.clear();
  }

  async #introspect(token: string): Promise<IntrospectionResponse> {
    this.requests++;
    let response: Response;
    try {
      response = await fetch(this.#url, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
        signal: AbortSignal.timeout(this.#timeoutMs),
        redirect: 'error',
      });
    } catch (error) {
      const why =
        error instanceof Error && error.name === 'TimeoutError'
          ? `no answer within ${this.#timeoutMs} ms`
          : 'unreachable';
      throw this.#serverFailure(why);
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw this.#serverFailure(`answered HTTP ${response.status}`);
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      throw this.#serverFailure('answered something that is not JSON');
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw this.#serverFailure('answered JSON that is not an object');
    }
    if (this.#serverFailing) {
      this.#serverFailing = false;
      this.#logger.info('oauth: token introspection works again');
    }
    return body as IntrospectionResponse;
  }

  #serverFailure(why: string): InvalidTokenError {
    if (!this.#serverFailing) {
      this.#serverFailing = true;
      this.#logger.warn(
        `oauth: token introspection at ${this.#url} failed (${why}); requests are refused until it works`,
      );
    }
    return this.#reject('introspection_error', 'Token could not be verified');
  }

  /** Once per verifier: every such token is refused, which is the operator's to fix. */
  #warnNoPrincipal(): void {
    if (this.#warnedNoPrincipal) return;
    this.#warnedNoPrincipal = true;
    this.#logger.warn(
      `oauth: ${this.#url} answered for a token with no sub, username or client_id; such tokens are refused (they would all be one caller)`,
    );
  }

  #reject(reason: OAuthRejectionReason, message: string): InvalidTokenError {
    publishRejection(reason);
    this.#logger.debug(`oauth: token refused (${reason})`);
    return new (legacyAuth().InvalidTokenError)(message);
  }
}

function withoutToken(info: AuthInfo): Omit<AuthInfo, 'token'> {
  const { token: _token, ...rest } = info;
  return rest;
}

type Refusal = { reason: OAuthRejectionReason; message: string };

const TIME_CLAIMS = ['exp', 'nbf', 'iat'] as const;
const IDENTITY_CLAIMS = ['sub', 'username', 'client_id'] as const;

/**
 * What an active token's answer says, checked at `now` (ms): its expiry in ms, or why it is
 * refused. Claims of the wrong type make the whole answer untrustworthy (RFC 7662 §2.2: times are
 * NumericDates, identities strings); `null` counts as absent.
 */
function checkClaims(
  answer: IntrospectionResponse,
  now: number,
): { expMs: number | undefined } | Refusal {
  for (const claim of TIME_CLAIMS) {
    const value = answer[claim];
    if (value != null && !(typeof value === 'number' && Number.isFinite(value))) {
      return { reason: 'invalid_claims', message: `Token's ${claim} is not a number` };
    }
  }
  for (const claim of IDENTITY_CLAIMS) {
    if (answer[claim] != null && typeof answer[claim] !== 'string') {
      return { reason: 'invalid_claims', message: `Token's ${claim} is not a string` };
    }
  }
  const expMs = typeof answer.exp === 'number' ? answer.exp * 1000 : undefined;
  // The authorization server's word is not enough: an expired token is refused even if it
  // still says active (clock skew, a lax server).
  if (expMs !== undefined && expMs <= now)
    return { reason: 'expired', message: 'Token has expired' };
  if (typeof answer.nbf === 'number' && answer.nbf * 1000 > now) {
    return { reason: 'not_yet_valid', message: 'Token is not valid yet (its nbf is ahead)' };
  }
  const identity = identityOf({
    clientId: answer.client_id,
    extra: { sub: answer.sub, username: answer.username },
  });
  if (identity === undefined) {
    return { reason: 'no_principal', message: 'Token names no sub, username or client_id' };
  }
  return { expMs };
}
