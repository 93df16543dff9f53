/**
 * The SSRF guard for endpoints this server sends credentials to (token introspection, the
 * Vaultwarden API): `https://` anywhere, plain `http://` only to this machine, so a token never
 * crosses a network in clear text and a config typo cannot point it at an internal service over
 * an unexpected scheme.
 *
 * @module
 */
import { isLoopbackHost } from '../http/loopback.ts';

/**
 * The parsed URL when `url` is acceptable, otherwise a reason in words (never the URL's
 * credentials or query, which could hold a secret).
 */
export function checkCredentialEndpoint(url: string): { url: URL } | { reason: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { reason: 'is not a valid URL' };
  }
  if (parsed.username || parsed.password) {
    return { reason: 'must not contain credentials (user:password@)' };
  }
  if (parsed.protocol === 'https:') return { url: parsed };
  if (parsed.protocol === 'http:' && isLoopbackHost(parsed.hostname)) return { url: parsed };
  return {
    reason: `must use https:// (plain http:// is allowed only to loopback: localhost, 127.0.0.0/8 or [::1]); got ${parsed.protocol}//${parsed.host}`,
  };
}

/** The URL without a trailing slash, so `${base}/path` never doubles it. */
export function trimTrailingSlash(url: URL): string {
  return url.href.replace(/\/+$/, '');
}
