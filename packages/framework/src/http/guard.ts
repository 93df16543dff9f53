/**
 * DNS-rebinding protection, the same for every listener of the toolkit (the MCP endpoint, the
 * health server, mcp-proxy's management API and console). A web page cannot read a loopback
 * server's answers directly, but it can point its own host name at 127.0.0.1 (DNS rebinding) and
 * then talk to the server as its own origin. The browser still sends the page's name in `Host`
 * and `Origin`, so a server on a loopback address answers only requests whose `Host` — and
 * `Origin`, when a browser sends one — is a loopback name ({@link isLoopbackHost}), or one of the
 * names the server was told to accept. Requests without `Origin` (non-browser clients) need only
 * the `Host`.
 *
 * A server beyond loopback gets no check unless it lists its names: it was allowed at start-up
 * with authentication (a page has no token) or with the user's explicit `--allow-unauthenticated`.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { hostOfHeader, isLoopbackHost } from './loopback.ts';

/** Why a request is refused (answer 403 with it), or `undefined` to let it through. */
export type RebindingCheck = (req: IncomingMessage) => string | undefined;

/** Header values are quoted in refusals, cut short: they come from whoever sent the request. */
const MAX_QUOTED = 100;
const quote = (value: string) =>
  value.length > MAX_QUOTED ? `${value.slice(0, MAX_QUOTED)}…` : value;
const bareName = (name: string) => name.toLowerCase().replace(/^\[(.*)\]$/, '$1');

/**
 * The check for a listener bound to `bind`, or `undefined` when none applies (beyond loopback
 * without `allowedHosts`).
 *
 * @param allowedHosts Host names (no port) to accept instead of the loopback names, e.g. the
 *   name a reverse proxy forwards.
 */
export function rebindingCheck(
  bind: string,
  allowedHosts?: readonly string[],
): RebindingCheck | undefined {
  const listed = allowedHosts && allowedHosts.length > 0 ? allowedHosts : undefined;
  if (listed === undefined && !isLoopbackHost(bind)) return undefined;
  const names = new Set(listed?.map(bareName));
  const accepts = listed ? (name: string) => names.has(bareName(name)) : isLoopbackHost;
  const rule = listed
    ? `this server answers only requests addressed to ${listed.join(', ')}`
    : 'this server listens on loopback and answers only requests addressed to a loopback name ' +
      '(localhost, 127.0.0.1, [::1])';
  // Clients send the same Host on every request: remember the last one accepted.
  let acceptedHost: string | undefined;

  return function refusesRebinding(req) {
    const host = req.headers.host;
    if (host !== acceptedHost) {
      if (host === undefined || host === '') return `Missing Host header: ${rule}`;
      const name = hostOfHeader(host);
      if (name === undefined || !accepts(name)) {
        return `Invalid Host: ${quote(host)}: ${rule}, so a web page cannot reach it through DNS rebinding`;
      }
      acceptedHost = host;
    }
    const origin = req.headers.origin;
    if (origin === undefined || accepts(originHost(origin))) return undefined;
    return `Invalid Origin: ${quote(origin)}: ${rule}, so a page from another site cannot call it`;
  };
}

/** The host name of an `Origin` (`''` for `null` and other opaque origins, which no rule accepts). */
function originHost(origin: string): string {
  try {
    return new URL(origin).hostname;
  } catch {
    return '';
  }
}
