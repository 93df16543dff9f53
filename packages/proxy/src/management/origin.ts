/**
 * Cross-site request refusal for the management API. A web page the operator opens can send
 * POSTs to `http://127.0.0.1:12299` (a form, or `fetch` with `mode: 'no-cors'`): the browser
 * does not let the page read the answer, but the request still runs — a load, an unload, a plugin
 * command. Such requests carry what the browser knows about their source: `Origin` (the page's
 * origin) and, in current browsers, `Sec-Fetch-Site`. `curl` and `mcp-proxy load` send neither.
 *
 * So a state-changing request is refused when either header says it comes from another origin,
 * with or without a token (a token does not help: the operator's browser never has it, and the
 * rule must hold when none is configured).
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { isLoopbackHost } from '@mcpbox/framework';

/** Methods that only read; everything else changes state. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether `origin` is `http://<loopback>:<port>`: a page served by this API itself. */
function isOwnOrigin(origin: string, port: number): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // includes the opaque origin "null" (sandboxed frames, file: pages)
  }
  return (
    url.protocol === 'http:' && isLoopbackHost(url.hostname) && Number(url.port || 80) === port
  );
}

/**
 * Why a request must be refused as coming from another site, or `undefined` to let it through.
 * `port` is the API's own port, the only one its own origin can have.
 */
export function crossSiteRefusal(req: IncomingMessage, port: number): string | undefined {
  if (SAFE_METHODS.has(req.method ?? 'GET')) return undefined;
  const site = req.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') {
    return `cross-site request refused (Sec-Fetch-Site: ${site})`;
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !isOwnOrigin(origin, port)) {
    return 'cross-site request refused (Origin is not this management API)';
  }
  return undefined;
}
