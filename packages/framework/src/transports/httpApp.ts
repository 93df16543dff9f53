/**
 * The Express app every HTTP transport is mounted on: DNS-rebinding protection (Host and Origin
 * checks) for loopback binds, room for extra routes and middleware (OAuth, `/.well-known/…`),
 * JSON bodies on the MCP paths, and malformed JSON answered as a JSON-RPC parse error (HTTP 400).
 *
 * @module
 */
import { hostHeaderValidation } from '@modelcontextprotocol/node';
import express, {
  type ErrorRequestHandler,
  type Express,
  type RequestHandler,
  type Response,
} from 'express';
import type { Logger } from '../plugins/types.ts';
import type { ServerCounters } from '../session/stats.ts';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** The paths that carry MCP messages; extra middleware and JSON parsing apply only here. */
export const MCP_PATHS = ['/mcp', '/sse', '/messages'];

export interface HttpAppOptions {
  /** The address the server binds; loopback binds get DNS-rebinding protection. */
  host: string;
  /**
   * Host names (no port) accepted in `Host` and `Origin` headers. Default: the loopback names
   * for a loopback bind; no check otherwise.
   */
  allowedHosts?: string[];
  /** Runs before the MCP routes on MCP paths only (e.g. bearer-token checks). */
  middleware?: RequestHandler[];
  /** Adds routes (e.g. `/.well-known/oauth-protected-resource`) ahead of the MCP routes. */
  configureApp?: (app: Express) => void;
  counters: ServerCounters;
  logger: Logger;
}

/** Writes a JSON-RPC error with no id, the form the SDK uses for transport-level rejections. */
export function sendJsonRpcError(res: Response, status: number, code: number, message: string) {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}

/** The allowed host names for this bind, or undefined when no check applies. */
export function allowedHostNames(host: string, allowedHosts?: string[]): string[] | undefined {
  if (allowedHosts && allowedHosts.length > 0) return allowedHosts;
  return LOOPBACK_HOSTS.has(host) ? LOOPBACK_NAMES : undefined;
}

/**
 * DNS-rebinding protection: the `Host` header must name this server (the SDK's check), and a
 * browser's `Origin`, when sent, must too — so a page from another site cannot reach a loopback
 * MCP server through a rebound DNS name. Requests without `Origin` (non-browser clients) pass.
 */
function dnsRebindingProtection(allowed: string[], counters: ServerCounters): RequestHandler {
  const checkHost = hostHeaderValidation(allowed);
  return function dnsRebindingProtection(req, res, next) {
    if (!checkHost(req, res)) {
      counters.errors += 1;
      return;
    }
    const origin = req.headers.origin;
    if (origin === undefined) return next();
    let hostname: string | undefined;
    try {
      hostname = new URL(origin).hostname;
    } catch {
      hostname = undefined;
    }
    if (hostname !== undefined) {
      const bracketed = hostname.includes(':') ? `[${hostname}]` : hostname;
      if (allowed.includes(hostname) || allowed.includes(bracketed)) return next();
    }
    counters.errors += 1;
    sendJsonRpcError(res, 403, -32000, `Invalid Origin: ${origin}`);
  };
}

export function createHttpApp(options: HttpAppOptions): Express {
  const { counters } = options;
  const app = express();
  app.disable('x-powered-by');

  const allowed = allowedHostNames(options.host, options.allowedHosts);
  // A bind beyond loopback was already allowed at start-up (authentication, or the user's
  // explicit --allow-unauthenticated); rebinding protection is for loopback names.
  if (allowed) app.use(dnsRebindingProtection(allowed, counters));

  options.configureApp?.(app);
  if (options.middleware && options.middleware.length > 0)
    app.use(MCP_PATHS, ...options.middleware);
  app.use(['/mcp', '/messages'], express.json({ limit: '4mb' }));
  return app;
}

/** The last handler: malformed JSON → 400 parse error; anything else → logged 500. */
export function jsonRpcErrorHandler(counters: ServerCounters, logger: Logger): ErrorRequestHandler {
  return function jsonRpcErrorHandler(error, _req, res, _next) {
    counters.errors += 1;
    const e = error as { type?: string; status?: number; message?: string };
    if (res.headersSent) {
      res.end();
      return;
    }
    if (e.type === 'entity.parse.failed') {
      return sendJsonRpcError(res, 400, -32700, 'Parse error: request body is not valid JSON');
    }
    if (e.type === 'entity.too.large') {
      return sendJsonRpcError(res, 413, -32600, 'Request body too large');
    }
    if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
      return sendJsonRpcError(res, e.status, -32600, e.message ?? 'Bad request');
    }
    logger.error('HTTP request failed', { error: e.message ?? String(error) });
    sendJsonRpcError(res, 500, -32603, 'Internal error');
  };
}
