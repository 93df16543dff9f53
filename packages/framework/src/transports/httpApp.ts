/**
 * The Express app every HTTP transport is mounted on: DNS-rebinding protection (Host and Origin
 * checks) for loopback binds, room for extra routes and middleware (OAuth, `/.well-known/…`),
 * JSON bodies on the MCP paths, and malformed JSON answered as a JSON-RPC parse error (HTTP 400).
 * (The common requests to `/mcp` skip Express: see fastLane.ts.)
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import type { Logger } from '../contract/logger.ts';
import { rebindingCheck } from '../http/guard.ts';
import { sendJsonRpcError } from '../http/json.ts';
import type { ServerCounters } from '../session/stats.ts';

// The transports' modules import it from here, beside the other HTTP pieces they use.
export { sendJsonRpcError };

/** A request to an MCP path: its JSON body once parsed, the caller's token once verified. */
export type McpRequest = IncomingMessage & { body?: unknown; auth?: AuthInfo };

/** The largest JSON body accepted on the MCP paths. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** The paths that carry MCP messages; extra middleware and JSON parsing apply only here. */
export const MCP_PATHS = ['/mcp', '/sse', '/messages'];

export interface HttpAppOptions {
  /** The address the server binds; loopback binds get DNS-rebinding protection. */
  host: string;
  /**
   * Host names (no port) accepted in `Host` and `Origin` headers. Default: any loopback name
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

/** Answers a request it refuses and returns false; returns true for one that may go on. */
export type RequestGuard = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * DNS-rebinding protection for the MCP endpoint ({@link rebindingCheck}: `Host`, and `Origin`
 * when a browser sends one, must name this server), a refusal answered as a JSON-RPC error.
 * `undefined` when the bind has no check.
 */
export function dnsRebindingGuard(
  host: string,
  allowedHosts: string[] | undefined,
  counters: ServerCounters,
): RequestGuard | undefined {
  const check = rebindingCheck(host, allowedHosts);
  if (check === undefined) return undefined;
  return function dnsRebindingProtection(req, res) {
    const refusal = check(req);
    if (refusal === undefined) return true;
    counters.errors += 1;
    sendJsonRpcError(res, 403, -32000, refusal);
    return false;
  };
}

export interface HttpApp {
  app: Express;
  /** The DNS-rebinding guard the app applies first, when this bind has one. */
  guard: RequestGuard | undefined;
}

export function createHttpApp(options: HttpAppOptions): HttpApp {
  const { counters } = options;
  const app = express();
  app.disable('x-powered-by');

  const guard = dnsRebindingGuard(options.host, options.allowedHosts, counters);
  if (guard) {
    app.use((req, res, next) => {
      if (guard(req, res)) next();
    });
  }

  options.configureApp?.(app);
  if (options.middleware && options.middleware.length > 0)
    app.use(MCP_PATHS, ...options.middleware);
  app.use(['/mcp', '/messages'], express.json({ limit: MAX_BODY_BYTES }));
  return { app, guard };
}

/** The last handler of the Express app: {@link answerRequestError}. */
export function jsonRpcErrorHandler(counters: ServerCounters, logger: Logger): ErrorRequestHandler {
  return function jsonRpcErrorHandler(error, _req, res, _next) {
    answerRequestError(error, res, counters, logger);
  };
}

/**
 * Answers a request that failed before or while being served: malformed JSON → 400 parse error,
 * a body over the limit → 413, another client error (body-parser's `status`) → that status;
 * anything else is logged and answered 500 without its message.
 */
export function answerRequestError(
  error: unknown,
  res: ServerResponse,
  counters: ServerCounters,
  logger: Logger,
): void {
  counters.errors += 1;
  const e = error as { type?: string; status?: number; message?: string };
  if (res.headersSent) {
    res.end();
    return;
  }
  if (e.type === 'entity.parse.failed') {
    sendJsonRpcError(res, 400, -32700, 'Parse error: request body is not valid JSON');
  } else if (e.type === 'entity.too.large') {
    sendJsonRpcError(res, 413, -32600, 'Request body too large');
  } else if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
    sendJsonRpcError(res, e.status, -32600, e.message ?? 'Bad request');
  } else {
    logger.error('HTTP request failed', { error: e.message ?? String(error) });
    sendJsonRpcError(res, 500, -32603, 'Internal error');
  }
}
