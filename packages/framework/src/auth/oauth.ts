/**
 * OAuth for the HTTP transports: a bearer-token check in front of the MCP endpoint (the SDK's
 * `requireBearerAuth` with {@link IntrospectionTokenVerifier}) and RFC 9728 protected-resource
 * metadata naming `oauth_public_url` and the authorization server.
 *
 * OAuth is on when `oauth_enabled` says so, or, when it is not written, when either URL is set
 * (the resolved `Config` carries the answer). Without OAuth the exposure rule applies
 * (see `exposure.ts`):
 *
 * | configuration                                  | result                                    |
 * | ---------------------------------------------- | ----------------------------------------- |
 * | HTTP, OAuth on, both URLs set                  | every MCP request needs a valid token     |
 * | HTTP, OAuth on, a URL missing                  | start-up error naming the missing URL     |
 * | HTTP, OAuth off, `api_keys` configured          | every MCP request needs a key (`apiKeys.ts`) |
 * | HTTP, OAuth off, loopback `host`               | no authentication, no warning             |
 * | HTTP, OAuth off, `host` beyond loopback        | start-up error, unless `allow_unauthenticated` (then one warning) |
 * | stdio                                          | ignored                                   |
 *
 * The SDK's `mcpAuthMetadataRouter` is not used: besides the resource metadata it publishes
 * authorization-server metadata at this server's origin, which a pure resource server would have
 * to invent. Its building block `metadataHandler` (CORS, GET/OPTIONS only) serves the document.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OAuthProtectedResourceMetadata } from '@modelcontextprotocol/server';
import { ConfigError } from '../errors.ts';
import { legacyAuth } from '../lazy.ts';
import type { Logger } from '../logging/index.ts';
import { checkCredentialEndpoint, trimTrailingSlash } from './endpoint.ts';
import { checkUnauthenticatedBind } from './exposure.ts';
import { type Clock, IntrospectionTokenVerifier, publishRejection } from './introspection.ts';

/** The configuration keys OAuth reads (a subset of the framework's `Config`). */
export interface OAuthConfig {
  transport: string;
  /** The address the HTTP server binds. Default `127.0.0.1`, as the server's. */
  host?: string;
  /** Serve without authentication beyond loopback on purpose. Default `false`. */
  allow_unauthenticated?: boolean;
  oauth_enabled: boolean;
  oauth_server_url: string | undefined;
  oauth_public_url: string | undefined;
  /** Seconds; 0 disables the cache. */
  oauth_cache_ttl: number;
  oauth_required_scopes: readonly string[];
  /** API keys (`apiKeys.ts`): when there are any, the endpoint is authenticated without OAuth. */
  api_keys?: readonly unknown[] | undefined;
}

/** Connect/Express-style middleware, as `app.use` takes it. */
export type HttpMiddleware = (
  req: IncomingMessage,
  res: ServerResponse,
  next: (error?: unknown) => void,
) => void | Promise<void>;

/** The part of an Express app `configureApp` needs. */
export interface AppLike {
  use(path: string, ...handlers: HttpMiddleware[]): unknown;
}

export interface OAuth {
  /** Put in front of the MCP endpoints (`/mcp`, `/sse`, `/messages`), in this order. */
  middleware: HttpMiddleware[];
  /** Mounts the protected-resource metadata (unauthenticated, as RFC 9728 requires). */
  configureApp(app: AppLike): void;
  /** The URL sent in `WWW-Authenticate: Bearer … resource_metadata="…"`. */
  resourceMetadataUrl: string;
  verifier: IntrospectionTokenVerifier;
}

export interface OAuthOptions {
  clock?: Clock;
  /** Introspection timeout. Default 10 000 ms. */
  timeoutMs?: number;
  /**
   * How the program's users write the settings that start-up errors name. Default
   * {@link CONFIG_SETTING_NAMES} (mcp-factory, mcp-proxy: config keys and their flags).
   */
  settingNames?: OAuthSettingNames;
}

/** The words start-up errors use for each setting, so they never advise one a program lacks. */
export interface OAuthSettingNames {
  serverUrl: string;
  publicUrl: string;
  /** How to bind loopback instead. */
  loopback: string;
  /** How to allow an unauthenticated bind beyond loopback. */
  allowUnauthenticated: string;
  /** How to turn OAuth off, if the program has a way. */
  disableOAuth?: string;
  /** How to configure API keys, if the program has them. */
  apiKeys?: string;
}

/** The settings as mcp-factory and mcp-proxy spell them: config keys, and flags where they exist. */
export const CONFIG_SETTING_NAMES: OAuthSettingNames = {
  serverUrl: 'oauth_server_url',
  publicUrl: 'oauth_public_url',
  loopback: '--host 127.0.0.1, or host: 127.0.0.1',
  allowUnauthenticated: '--allow-unauthenticated (or allow_unauthenticated: true)',
  disableOAuth: 'oauth_enabled: false',
  apiKeys: 'api_keys',
};

const METADATA_PATH = '/.well-known/oauth-protected-resource';

/**
 * OAuth for `config`, or `undefined` when requests go unauthenticated (see the module table).
 *
 * @throws ConfigError when OAuth is on and a URL is missing or unusable (not https, or plain http
 *   to another machine).
 * @throws UnauthenticatedBindError when OAuth is off and `host` is beyond loopback without
 *   `allow_unauthenticated`.
 */
export function createOAuth(
  config: OAuthConfig,
  logger: Logger,
  options: OAuthOptions = {},
): OAuth | undefined {
  const names = options.settingNames ?? CONFIG_SETTING_NAMES;
  if (config.transport === 'stdio') return undefined;
  if (!config.oauth_enabled) {
    // API keys authenticate the endpoint: the bind is not an open one.
    if ((config.api_keys?.length ?? 0) > 0) return undefined;
    checkUnauthenticatedBind(
      {
        what: `the ${config.transport} endpoint`,
        host: config.host ?? '127.0.0.1',
        allowUnauthenticated: config.allow_unauthenticated,
        remedies: {
          loopback: names.loopback,
          authenticate: `set ${names.serverUrl} and ${names.publicUrl} for OAuth${names.apiKeys ? ` (or ${names.apiKeys})` : ''}`,
          allow: names.allowUnauthenticated,
        },
      },
      logger,
    );
    return undefined;
  }
  // OAuth asked for but half set up must not quietly serve without it.
  const missing = [
    config.oauth_server_url ? undefined : names.serverUrl,
    config.oauth_public_url ? undefined : names.publicUrl,
  ].filter((name) => name !== undefined);
  if (missing.length > 0) {
    const off = names.disableOAuth ? `, or ${names.disableOAuth} to serve without OAuth` : '';
    throw new ConfigError([
      `${missing.join(' and ')}: not set, but OAuth is on: set both ${names.serverUrl} and ${names.publicUrl}${off}`,
    ]);
  }

  const server = checkCredentialEndpoint(config.oauth_server_url!);
  if ('reason' in server) throw new ConfigError([`${names.serverUrl}: ${server.reason}`]);
  let publicUrl: URL;
  try {
    publicUrl = new URL(config.oauth_public_url!);
    if (publicUrl.protocol !== 'https:' && publicUrl.protocol !== 'http:') throw new Error();
  } catch {
    throw new ConfigError([`${names.publicUrl}: expected an http(s) URL`]);
  }

  const issuer = trimTrailingSlash(server.url);
  const verifier = new IntrospectionTokenVerifier({
    introspectionUrl: `${issuer}/introspect`,
    cacheTtlSeconds: config.oauth_cache_ttl,
    timeoutMs: options.timeoutMs,
    clock: options.clock,
    logger,
  });
  const requiredScopes = [...config.oauth_required_scopes];
  const { getOAuthProtectedResourceMetadataUrl, metadataHandler, requireBearerAuth } = legacyAuth();
  const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(publicUrl);
  const metadata: OAuthProtectedResourceMetadata = {
    resource: publicUrl.href,
    authorization_servers: [issuer],
    bearer_methods_supported: ['header'],
    ...(requiredScopes.length > 0 ? { scopes_supported: requiredScopes } : {}),
  };

  logger.info(`OAuth: tokens checked by introspection at ${issuer}/introspect`, {
    resource: publicUrl.href,
    cache_ttl: config.oauth_cache_ttl,
    ...(requiredScopes.length > 0 ? { scopes: requiredScopes.join(' ') } : {}),
  });

  return {
    middleware: [
      countRejections,
      requireBearerAuth({ verifier, requiredScopes, resourceMetadataUrl }) as HttpMiddleware,
    ],
    configureApp(app) {
      const handler = metadataHandler(metadata) as HttpMiddleware;
      // The bare path for clients that do not insert the resource path (RFC 9728 §3.1 does).
      app.use(METADATA_PATH, handler);
      const specific = new URL(resourceMetadataUrl).pathname;
      if (specific !== METADATA_PATH) app.use(specific, handler);
    },
    resourceMetadataUrl,
    verifier,
  };
}

/**
 * Counts the refusals `requireBearerAuth` decides itself (no or malformed header, missing
 * scope); the verifier counts the ones it decides (inactive, expired, introspection failure).
 */
function countRejections(
  req: IncomingMessage,
  res: ServerResponse,
  next: (error?: unknown) => void,
) {
  res.once('finish', () => {
    const header = req.headers.authorization;
    if (res.statusCode === 403) publishRejection('insufficient_scope');
    else if (res.statusCode === 401) {
      if (header === undefined) publishRejection('missing_token');
      else if (!/^bearer \S+$/i.test(header.trim())) publishRejection('invalid_token');
    }
  });
  next();
}
