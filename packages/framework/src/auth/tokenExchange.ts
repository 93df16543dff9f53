/**
 * OAuth 2.0 Token Exchange (RFC 8693) for mirrored servers: the caller's own verified access
 * token is exchanged at the configured token endpoint for a token the upstream accepts, so the
 * upstream sees the caller, not this server. One token per principal and caller token, reused
 * until shortly before it expires; concurrent calls share one exchange.
 *
 * ```yaml
 * token_exchange:
 *   token_url: https://auth.example.com/oauth/token
 *   client_id: mcpbox
 *   client_secret: ${MCPBOX_CLIENT_SECRET}   # optional: HTTP Basic when given
 *   audience: https://mcp.github.example     # optional
 *   scope: repo                              # optional
 * ```
 *
 * Only an OAuth caller's token is exchanged (an API key is never sent anywhere). Failures name
 * the endpoint's `error` code and HTTP status, never a token.
 *
 * @module
 */
import { z } from 'zod';
import type { Principal } from '../contract/principal.ts';
import { nodeCrypto } from '../lazy.ts';
import { CredentialError } from '../secrets/references.ts';
import { checkCredentialEndpoint } from './endpoint.ts';

const GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';
/** A token is not handed out in its last seconds: the call may take that long. */
const SKEW_SECONDS = 30;
/** How long a token the endpoint gave no lifetime for is reused. */
const DEFAULT_SECONDS = 60;

export interface TokenExchangeSettings {
  tokenUrl: string;
  clientId: string;
  clientSecret?: string;
  audience?: string;
  scope?: string;
}

const settingsSchema = z
  .object({
    token_url: z.string().min(1),
    client_id: z.string().min(1),
    client_secret: z.string().min(1).optional(),
    audience: z.string().min(1).optional(),
    scope: z.string().min(1).optional(),
  })
  .strict();

/**
 * Validates a `token_exchange:` mapping.
 *
 * @throws Error naming the key, e.g. `plugins.github.token_exchange.token_url: must use https://`.
 */
export function parseTokenExchange(raw: unknown, label: string): TokenExchangeSettings {
  const result = settingsSchema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    const keys = issue.code === 'unrecognized_keys' ? ` ${issue.keys.join(', ')}` : '';
    throw new Error(`${[label, ...issue.path].join('.')}: ${issue.message}${keys}`);
  }
  const written = result.data;
  const checked = checkCredentialEndpoint(written.token_url);
  if ('reason' in checked) throw new Error(`${label}.token_url: ${checked.reason}`);
  return {
    tokenUrl: checked.url.href,
    clientId: written.client_id,
    ...(written.client_secret !== undefined && { clientSecret: written.client_secret }),
    ...(written.audience !== undefined && { audience: written.audience }),
    ...(written.scope !== undefined && { scope: written.scope }),
  };
}

interface Issued {
  token: string;
  until: number;
}

export class TokenExchanger {
  readonly #settings: TokenExchangeSettings;
  readonly #where: string;
  readonly #clock: () => number;
  /** By principal and a digest of the caller's token: a new caller token is exchanged anew. */
  readonly #issued = new Map<string, Issued>();
  readonly #pending = new Map<string, Promise<Issued>>();

  /** @param where names the upstream in messages (`upstream 'github'`). */
  constructor(settings: TokenExchangeSettings, where: string, clock: () => number = Date.now) {
    this.#settings = settings;
    this.#where = where;
    this.#clock = clock;
  }

  /**
   * The upstream token for this caller.
   *
   * @throws {CredentialError} when the caller has no OAuth token or the exchange fails.
   */
  async tokenFor(principal: Principal, callerToken: unknown): Promise<string> {
    if (principal.kind !== 'oauth' || typeof callerToken !== 'string' || callerToken === '') {
      throw new CredentialError(
        `${this.#where} exchanges the caller's OAuth access token for its own, and ${principal.id} did not sign in with OAuth`,
      );
    }
    const key = `${principal.id}\u0000${nodeCrypto().createHash('sha256').update(callerToken).digest('base64url')}`;
    const now = this.#clock();
    const known = this.#issued.get(key);
    if (known && known.until > now) return known.token;
    let pending = this.#pending.get(key);
    if (!pending) {
      pending = this.#exchange(principal, callerToken).finally(() => this.#pending.delete(key));
      this.#pending.set(key, pending);
    }
    const issued = await pending;
    for (const [other, entry] of this.#issued) if (entry.until <= now) this.#issued.delete(other);
    this.#issued.set(key, issued);
    return issued.token;
  }

  async #exchange(principal: Principal, subjectToken: string): Promise<Issued> {
    const { tokenUrl, clientId, clientSecret, audience, scope } = this.#settings;
    const form = new URLSearchParams({
      grant_type: GRANT,
      subject_token: subjectToken,
      subject_token_type: ACCESS_TOKEN,
      requested_token_type: ACCESS_TOKEN,
    });
    if (audience) form.set('audience', audience);
    if (scope) form.set('scope', scope);
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    // RFC 6749 §2.3.1: the client's id and secret, form-encoded, as HTTP Basic credentials.
    if (clientSecret) {
      const pair = `${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`;
      headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
    } else {
      form.set('client_id', clientId);
    }
    const failed = (why: string) =>
      new CredentialError(`${this.#where}: token exchange for ${principal.id} failed: ${why}`);
    let response: Response;
    try {
      response = await fetch(tokenUrl, {
        method: 'POST',
        headers,
        body: form.toString(),
        signal: AbortSignal.timeout(10_000),
        redirect: 'error',
      });
    } catch (error) {
      const timedOut = error instanceof Error && error.name === 'TimeoutError';
      throw failed(`the token endpoint is ${timedOut ? 'not answering' : 'unreachable'}`);
    }
    const body = (await response.json().catch(() => undefined)) as
      | Record<string, unknown>
      | undefined;
    if (!response.ok) {
      const code = typeof body?.error === 'string' ? ` (${body.error.slice(0, 64)})` : '';
      throw failed(`the token endpoint answered HTTP ${response.status}${code}`);
    }
    if (typeof body?.access_token !== 'string' || body.access_token === '') {
      throw failed('the token endpoint answered without an access_token');
    }
    const lifetime = Number(body.expires_in);
    const seconds = Number.isFinite(lifetime) && lifetime > 0 ? lifetime : DEFAULT_SECONDS;
    const usable = Math.max(seconds - SKEW_SECONDS, Math.min(seconds, 1));
    return { token: body.access_token, until: this.#clock() + usable * 1000 };
  }
}
