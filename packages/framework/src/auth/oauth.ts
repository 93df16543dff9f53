/**
 * OAuth for the HTTP transports: a bearer-token check in front of the MCP endpoint (the SDK's
 * `requireBearerAuth` with {@link IntrospectionTokenVerifier}) and RFC 9728 protected-resource
 * metadata naming `oauth_public_url` and the authorization server.
 *
 * | configuration                         | result                                  |
 * | ------------------------------------- | --------------------------------------- |
 * | HTTP, enabled, both URLs set          | every MCP request needs a valid token   |
 * | HTTP, enabled, a URL missing          | one loud warning, no authentication     |
 * | `oauth_enabled: false`                | no authentication, no warning           |
 * | stdio                                 | ignored                                 |
 *
 * The SDK's `mcpAuthMetadataRouter` is not used: besides the resource metadata it publishes
 * authorization-server metadata at this server's origin, which a pure resource server would have
 * to invent. Its building block `metadataHandler` (CORS, GET/OPTIONS only) serves the document.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OAuthProtectedResourceMetadata } from '@modelcontextprotocol/server';
import {
  getOAuthProtectedResourceMetadataUrl,
  metadataHandler,
  requireBearerAuth,
} from '@modelcontextprotocol/server-legacy/auth';
import { ConfigError } from '../config/errors.ts';
import type { Logger } from '../logging/index.ts';
import { checkCredentialEndpoint, trimTrailingSlash } from './endpoint.ts';
import { type Clock, IntrospectionTokenVerifier, publishRejection } from './introspection.ts';

/** The configuration keys OAuth reads (a subset of the framework's `Config`). */
export interface OAuthConfig {
  transport: string;
  oauth_enabled: boolean;
  oauth_server_url: string | undefined;
  oauth_public_url: string | undefined;
  /** Seconds; 0 disables the cache. */
  oauth_cache_ttl: number;
  oauth_required_scopes: readonly string[];
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
}

const METADATA_PATH = '/.well-known/oauth-protected-resource';

/**
 * OAuth for `config`, or `undefined` when requests go unauthenticated (see the module table).
 *
 * @throws ConfigError when a URL is unusable (not https, or plain http to another machine).
 */
export function createOAuth(
  config: OAuthConfig,
  logger: Logger,
  options: OAuthOptions = {},
): OAuth | undefined {
  if (config.transport === 'stdio' || !config.oauth_enabled) return undefined;
  const missing = [
    config.oauth_server_url ? '' : 'oauth_server_url',
    config.oauth_public_url ? '' : 'oauth_public_url',
  ].filter(Boolean);
  if (missing.length > 0) {
    logger.warn(
      `OAuth is enabled but ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set: the ${config.transport} endpoint runs WITHOUT AUTHENTICATION. Set both URLs, or oauth_enabled: false to run open on purpose.`,
    );
    return undefined;
  }

  const server = checkCredentialEndpoint(config.oauth_server_url!);
  if ('reason' in server) throw new ConfigError([`oauth_server_url: ${server.reason}`]);
  let publicUrl: URL;
  try {
    publicUrl = new URL(config.oauth_public_url!);
    if (publicUrl.protocol !== 'https:' && publicUrl.protocol !== 'http:') throw new Error();
  } catch {
    throw new ConfigError(['oauth_public_url: expected an http(s) URL']);
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
