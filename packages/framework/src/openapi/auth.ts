/**
 * Credentials for an operation's requests, from the document's security schemes and the
 * config's `auth:` (by scheme name): API keys in a header, the query or a cookie; HTTP bearer
 * and basic; OAuth 2.0 client credentials, whose token is fetched once, shared by concurrent
 * calls, kept until shortly before it expires and fetched anew then (or after a 401).
 *
 * Of an operation's alternative requirements, the first whose schemes all have credentials is
 * used; an operation that needs credentials the config does not give fails with what to add,
 * before anything is sent. The values are resolved once (`${VAR}`, `${secret:NAME}`) by the
 * plugin, which also keeps them out of logs and results.
 *
 * @module
 */
import type { Requirement } from './operation.ts';
import type { HttpRequest } from './request.ts';
import type { SchemeCredentials } from './settings.ts';

interface Scheme {
  type?: string;
  in?: string;
  name?: string;
  scheme?: string;
  flows?: { clientCredentials?: { tokenUrl?: string; scopes?: Record<string, string> } };
}

interface Token {
  value: string;
  /** Epoch ms after which a new one is fetched. */
  renewAt: number;
}

/** Renew this long before the token says it expires (clocks and flight time). */
const EARLY_MS = 30_000;
const DEFAULT_LIFETIME_S = 3600;

export class OpenApiAuth {
  readonly #schemes: Record<string, Scheme>;
  readonly #credentials: Record<string, SchemeCredentials>;
  readonly #label: string;
  /** Where a relative `tokenUrl` is resolved (the API's base URL). */
  readonly #base: string;
  readonly #timeoutMs: number;
  readonly #tokens = new Map<string, Promise<Token>>();

  constructor(options: {
    schemes: Record<string, unknown> | undefined;
    credentials: Record<string, SchemeCredentials>;
    label: string;
    base: string;
    timeoutMs: number;
  }) {
    this.#schemes = (options.schemes ?? {}) as Record<string, Scheme>;
    this.#credentials = options.credentials;
    this.#label = options.label;
    this.#base = options.base;
    this.#timeoutMs = options.timeoutMs;
    for (const name of Object.keys(options.credentials)) {
      if (!(name in this.#schemes)) {
        const known = Object.keys(this.#schemes).join(', ') || 'none';
        throw new Error(
          `${options.label}.auth.${name}: the document has no security scheme '${name}' (it has: ${known})`,
        );
      }
    }
  }

  /** Adds the credentials `requirements` call for to `request`. */
  async apply(request: HttpRequest, requirements: Requirement[], signal: AbortSignal) {
    if (requirements.length === 0) return;
    const usable = requirements.find((requirement) =>
      Object.keys(requirement).every((name) => this.#credentials[name] !== undefined),
    );
    if (!usable) {
      const wanted = requirements.map((r) => Object.keys(r).join(' + ')).join(' or ');
      throw new Error(
        `this operation needs credentials (${wanted}): add them under ${this.#label}.auth`,
      );
    }
    for (const [name, scopes] of Object.entries(usable)) {
      await this.#applyOne(request, name, scopes, signal);
    }
  }

  /** Forgets cached tokens (the API refused one: the next call fetches a new one). */
  invalidate(): void {
    this.#tokens.clear();
  }

  async #applyOne(request: HttpRequest, name: string, scopes: string[], signal: AbortSignal) {
    const scheme = this.#schemes[name] ?? {};
    const given = this.#credentials[name];
    const where = `${this.#label}.auth.${name}`;
    const need = (key: keyof SchemeCredentials): string => {
      const value = given[key];
      if (typeof value !== 'string') throw new Error(`${where}.${key} is needed for this scheme`);
      return value;
    };
    if (scheme.type === 'apiKey') {
      const key = need('key');
      if (scheme.in === 'header') request.headers.set(scheme.name ?? name, key);
      else if (scheme.in === 'query') request.url.searchParams.append(scheme.name ?? name, key);
      else if (scheme.in === 'cookie')
        appendCookie(request, `${scheme.name}=${encodeURIComponent(key)}`);
      return;
    }
    if (scheme.type === 'http' && scheme.scheme?.toLowerCase() === 'bearer') {
      request.headers.set('authorization', `Bearer ${need('token')}`);
      return;
    }
    if (scheme.type === 'http' && scheme.scheme?.toLowerCase() === 'basic') {
      const pair = `${need('username')}:${given.password ?? ''}`;
      request.headers.set('authorization', `Basic ${Buffer.from(pair).toString('base64')}`);
      return;
    }
    if (scheme.type === 'oauth2' && (scheme.flows?.clientCredentials || given.token_url)) {
      const token = await this.#token(name, given.scopes ?? scopes, signal);
      request.headers.set('authorization', `Bearer ${token}`);
      return;
    }
    const kind = [scheme.type, scheme.scheme].filter(Boolean).join(' ');
    throw new Error(
      `${where}: security scheme of type ${kind || 'unknown'} is not supported (API key, HTTP bearer/basic, OAuth 2.0 client credentials are)`,
    );
  }

  /** A valid token for `name`: the cached one, the one being fetched, or a new one. */
  async #token(name: string, scopes: string[], signal: AbortSignal): Promise<string> {
    const key = `${name} ${[...scopes].sort().join(' ')}`;
    const cached = this.#tokens.get(key);
    if (cached) {
      const token = await cached.catch(() => undefined);
      if (token && token.renewAt > Date.now()) return token.value;
      if (this.#tokens.get(key) === cached) this.#tokens.delete(key);
    }
    let pending = this.#tokens.get(key);
    if (!pending) {
      // Not tied to this caller's signal: other calls wait for the same token.
      pending = this.#fetchToken(name, scopes);
      this.#tokens.set(key, pending);
      pending.catch(() => {
        if (this.#tokens.get(key) === pending) this.#tokens.delete(key);
      });
    }
    signal.throwIfAborted();
    return (await pending).value;
  }

  async #fetchToken(name: string, scopes: string[]): Promise<Token> {
    const given = this.#credentials[name];
    const where = `${this.#label}.auth.${name}`;
    const documented = this.#schemes[name]?.flows?.clientCredentials?.tokenUrl;
    const tokenUrl = new URL(given.token_url ?? documented ?? '', this.#base);
    if (!given.client_id || !given.client_secret) {
      throw new Error(`${where}: client_id and client_secret are needed for client credentials`);
    }
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scopes.length > 0) form.set('scope', scopes.join(' '));
    const basic = Buffer.from(
      `${encodeURIComponent(given.client_id)}:${encodeURIComponent(given.client_secret)}`,
    ).toString('base64');
    let response: Response;
    try {
      response = await fetch(tokenUrl, {
        method: 'POST',
        headers: {
          authorization: `Basic ${basic}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: form.toString(),
        redirect: 'error',
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (error) {
      throw new Error(
        `${where}: the token endpoint ${tokenUrl.origin}${tokenUrl.pathname} did not answer (${(error as Error).message})`,
      );
    }
    const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (!response.ok || typeof body.access_token !== 'string') {
      // The endpoint's error code only: its description might repeat what was sent.
      const reason = typeof body.error === 'string' ? body.error : 'no access_token';
      throw new Error(`${where}: the token endpoint refused (${response.status}, ${reason})`);
    }
    const lifetime = Number(body.expires_in ?? DEFAULT_LIFETIME_S);
    const seconds = Number.isFinite(lifetime) && lifetime > 0 ? lifetime : DEFAULT_LIFETIME_S;
    return {
      value: body.access_token,
      renewAt: Date.now() + Math.max(seconds * 1000 - EARLY_MS, (seconds * 1000) / 2),
    };
  }
}

function appendCookie(request: HttpRequest, piece: string): void {
  const existing = request.headers.get('cookie');
  request.headers.set('cookie', existing ? `${existing}; ${piece}` : piece);
}
