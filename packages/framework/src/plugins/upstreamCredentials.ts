/**
 * Per-user credentials of a mirrored HTTP server: header values with `${secret:NAME}` references
 * (`Authorization: Bearer ${secret:github/{principal}}`, read from the `secrets:` backend), and
 * OAuth token exchange (`token_exchange:`, RFC 8693) of the caller's own token. Both are
 * resolved per call, for the calling principal; the mirror then calls through that principal's
 * own connection (`client/callerConnections.ts`).
 *
 * The load-time listing (and list-change following) cannot act for a caller: it connects with
 * the entry's headers that name no caller — plain ones, `${VAR}`s and `${secret:NAME}`s without
 * `{principal}` — overlaid with `list_headers:` (a service credential for listing, if the
 * upstream wants one). Token exchange never applies to it.
 *
 * @module
 */
import { TokenExchanger, type TokenExchangeSettings } from '../auth/tokenExchange.ts';
import type { HttpUpstreamParams, UpstreamParams } from '../client/params.ts';
import { isStdioParams } from '../client/params.ts';
import type { Principal } from '../contract/principal.ts';
import type { RequestExtra } from '../contract/tool.ts';
import { createLogger } from '../logging/index.ts';
import {
  type SecretBackend,
  type SecretSourceSettings,
  secretBackendFor,
} from '../secrets/backends.ts';
import {
  namesPrincipal,
  type ReferenceSource,
  resolveReferences,
  secretReferences,
} from '../secrets/references.ts';
import { parseSecretsConfig } from '../secrets/settings.ts';

/** What an entry says about credentials beyond its `url` and `headers`. */
export interface UpstreamCredentialSettings {
  /** The `secrets:` backend (`secrets/settings.ts`); default: the file `~/.mcp_secrets`. */
  secrets?: SecretSourceSettings;
  /** Headers for the load-time listing, over the ones that name no caller. */
  listHeaders?: Record<string, string>;
  tokenExchange?: TokenExchangeSettings;
}

type Headers = Record<string, string>;

/** The headers of `params` split by what they need: nothing, or the secret backend. */
function split(headers: Headers = {}) {
  const plain: Headers = {};
  const referencing: Headers = {};
  for (const [key, value] of Object.entries(headers)) {
    if (secretReferences(value).length > 0) referencing[key] = value;
    else plain[key] = value;
  }
  return { plain, referencing };
}

export class UpstreamCredentials {
  /** The params every connection is made with: the headers that reference no secret. */
  readonly params: UpstreamParams;
  /** True when calls need the caller (a header names it, or the token is exchanged). */
  readonly perPrincipal: boolean;
  readonly #where: string;
  readonly #referencing: Headers;
  readonly #listHeaders: Headers;
  readonly #exchanger: TokenExchanger | undefined;
  readonly #settings: UpstreamCredentialSettings;
  readonly #env: ReferenceSource['env'];
  #backend: SecretBackend | undefined;

  /** @param env where `${VAR}` placeholders around the references are looked up. */
  constructor(
    name: string,
    params: HttpUpstreamParams,
    settings: UpstreamCredentialSettings,
    env: ReferenceSource['env'],
  ) {
    const { plain, referencing } = split(params.headers);
    this.#where = `upstream '${name}'`;
    this.#env = env;
    this.#settings = settings;
    this.#referencing = referencing;
    this.#listHeaders = settings.listHeaders ?? {};
    for (const [key, value] of Object.entries(this.#listHeaders)) {
      if (namesPrincipal(value)) {
        throw new Error(`list_headers.${key}: the listing has no caller; name none here`);
      }
    }
    this.params = { ...params, headers: plain };
    this.#exchanger =
      settings.tokenExchange && new TokenExchanger(settings.tokenExchange, this.#where);
    this.perPrincipal =
      this.#exchanger !== undefined || Object.values(referencing).some(namesPrincipal);
  }

  /** True when an entry needs this module: secret references, list headers or an exchange. */
  static needed(params: UpstreamParams, settings: UpstreamCredentialSettings): boolean {
    if (isStdioParams(params)) return false;
    const referencing = Object.keys(split(params.headers).referencing).length > 0;
    return (
      referencing || settings.tokenExchange !== undefined || settings.listHeaders !== undefined
    );
  }

  /** The backend, made on first use: an entry without references never needs one. */
  #source(principal?: Principal): ReferenceSource {
    const settings = this.#settings.secrets ?? parseSecretsConfig(undefined);
    this.#backend ??= secretBackendFor(
      settings,
      { logger: createLogger('secrets'), clock: Date.now, env: this.#env as NodeJS.ProcessEnv },
      'secrets',
    );
    return {
      env: this.#env,
      backend: this.#backend,
      backendName: describeBackend(settings),
      principal,
    };
  }

  /** Headers of the load-time listing connection: those naming no caller, and `list_headers`. */
  async listingHeaders(): Promise<Headers> {
    const headers: Headers = {};
    for (const [key, value] of Object.entries(this.#referencing)) {
      if (!namesPrincipal(value)) headers[key] = await this.#resolve(`headers.${key}`, value);
    }
    for (const [key, value] of Object.entries(this.#listHeaders)) {
      headers[key] = await this.#resolve(`list_headers.${key}`, value);
    }
    return headers;
  }

  /**
   * The headers this caller's calls are made with.
   *
   * @throws {CredentialError} saying what to set up for this caller; never a secret.
   */
  async headersFor(ctx: RequestExtra): Promise<Headers> {
    const headers: Headers = {};
    for (const [key, value] of Object.entries(this.#referencing)) {
      headers[key] = await this.#resolve(`headers.${key}`, value, ctx.principal);
    }
    if (this.#exchanger) {
      const token = await this.#exchanger.tokenFor(ctx.principal, ctx.authInfo?.token);
      headers.Authorization = `Bearer ${token}`;
    }
    return headers;
  }

  #resolve(field: string, value: string, principal?: Principal): Promise<string> {
    return resolveReferences(value, `${this.#where}: ${field}`, this.#source(principal));
  }
}

/** `the file backend (/home/me/.mcp_secrets)`, for messages. */
function describeBackend(settings: SecretSourceSettings): string {
  switch (settings.backend) {
    case 'env':
      return "this server's environment (secrets backend env)";
    case 'file':
      return `the file backend (${settings.secretFile})`;
    case 'vaultwarden':
      return 'Vaultwarden (secrets backend vaultwarden)';
  }
}
