/**
 * OAuth for the HTTP transports: RFC 7662 introspection, RFC 9728 resource metadata.
 *
 * @module
 */
export { checkCredentialEndpoint } from './endpoint.ts';
export {
  checkUnauthenticatedBind,
  type ExposureRemedies,
  type UnauthenticatedBind,
  UnauthenticatedBindError,
} from './exposure.ts';
export {
  type IntrospectionOptions,
  IntrospectionTokenVerifier,
  OAUTH_CHANNEL,
  type OAuthRejectionReason,
} from './introspection.ts';
export {
  type AppLike,
  CONFIG_SETTING_NAMES,
  createOAuth,
  type HttpMiddleware,
  type OAuth,
  type OAuthConfig,
  type OAuthOptions,
  type OAuthSettingNames,
} from './oauth.ts';
