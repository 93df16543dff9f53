/**
 * Authentication for the HTTP transports: API keys, OAuth (RFC 7662 introspection, RFC 9728
 * resource metadata), and the exposure rule.
 *
 * @module
 */
export {
  API_KEY_NAME,
  type ApiKey,
  ApiKeys,
  apiKeyMiddleware,
  type KeyChanges,
  newApiKey,
  parseApiKeys,
} from './apiKeys.ts';
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
