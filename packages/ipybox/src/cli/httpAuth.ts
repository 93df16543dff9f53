/**
 * Authentication for `ipybox --http`: the framework's OAuth (RFC 7662 introspection, RFC 9728
 * metadata) from ipybox's flags, and the framework's exposure rule — a bind beyond loopback
 * without OAuth is refused unless `--allow-unauthenticated`. Errors name ipybox's flags, never
 * settings ipybox does not have.
 *
 * @module
 */
import {
  createLogger,
  createOAuth,
  type OAuthSettingNames,
  type Security,
} from '@mcpbox/framework';

export interface HttpAuthFlags {
  /** `--host` */
  host: string;
  /** `--allow-unauthenticated` */
  allowUnauthenticated?: boolean;
  /** `--oauth-server-url`: introspection at `{url}/introspect`. */
  oauthServerUrl?: string;
  /** `--oauth-public-url`: this server's URL, named in the resource metadata. */
  oauthPublicUrl?: string;
  /** `--oauth-cache-ttl`, seconds. */
  oauthCacheTtl: number;
  /** `--oauth-required-scopes` */
  oauthRequiredScopes?: string[];
}

const FLAG_NAMES: OAuthSettingNames = {
  serverUrl: '--oauth-server-url',
  publicUrl: '--oauth-public-url',
  loopback: '--host 127.0.0.1',
  allowUnauthenticated: '--allow-unauthenticated',
};

/**
 * The HTTP options to hand to the server (OAuth middleware and metadata route), or none.
 *
 * @throws ConfigError when one OAuth URL is given without the other, or a URL is unusable.
 * @throws UnauthenticatedBindError for a bind beyond loopback without OAuth or
 *   `--allow-unauthenticated`.
 */
export function httpAuthentication(flags: HttpAuthFlags): Security['httpOptions'] {
  const oauth = createOAuth(
    {
      transport: 'http',
      host: flags.host,
      allow_unauthenticated: flags.allowUnauthenticated === true,
      // As in the framework's config: giving a URL asks for OAuth, and then both are needed.
      oauth_enabled: flags.oauthServerUrl !== undefined || flags.oauthPublicUrl !== undefined,
      oauth_server_url: flags.oauthServerUrl,
      oauth_public_url: flags.oauthPublicUrl,
      oauth_cache_ttl: flags.oauthCacheTtl,
      oauth_required_scopes: flags.oauthRequiredScopes ?? [],
    },
    createLogger('oauth'),
    { settingNames: FLAG_NAMES },
  );
  return oauth ? { httpMiddleware: oauth.middleware, configureApp: oauth.configureApp } : {};
}
