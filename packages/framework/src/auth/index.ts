/**
 * OAuth for the HTTP transports: RFC 7662 introspection, RFC 9728 resource metadata.
 *
 * @module
 */
export { checkCredentialEndpoint } from './endpoint.ts';
export {
  type IntrospectionOptions,
  IntrospectionTokenVerifier,
  OAUTH_CHANNEL,
  type OAuthRejectionReason,
} from './introspection.ts';
export {
  type AppLike,
  createOAuth,
  type HttpMiddleware,
  type OAuth,
  type OAuthConfig,
  type OAuthOptions,
} from './oauth.ts';
