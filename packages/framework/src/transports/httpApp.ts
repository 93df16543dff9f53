/**
 * The Express app behind the MCP endpoint: DNS-rebinding protection (Host and Origin checks) for
 * loopback binds, room for extra routes and middleware (OAuth, `/.well-known/…`), JSON bodies on
 * the MCP paths, and malformed JSON answered as a JSON-RPC parse error (HTTP 400). The common
 * requests to `/mcp` skip it (fastLane.ts); without middleware or extra routes it is built only
 * for the first request that needs it (serveHttp.ts), so a server that never sees one loads no
 * Express.
 *
 * @module
 */
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import type { Logger } from '../contract/logger.ts';
import type { ServerCounters } from '../session/stats.ts';
import {
  answerRequestError,
  MAX_BODY_BYTES,
  MCP_PATHS,
  type RequestGuard,
} from './mcpHttpRequest.ts';

export interface HttpAppOptions {
  /** The DNS-rebinding guard ({@link dnsRebindingGuard}), applied first, when the bind has one. */
  guard: RequestGuard | undefined;
  /** Runs before the MCP routes on MCP paths only (e.g. bearer-token checks). */
  middleware?: RequestHandler[];
  /** Adds routes (e.g. `/.well-known/oauth-protected-resource`) ahead of the MCP routes. */
  configureApp?: (app: Express) => void;
}

export function createHttpApp(options: HttpAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  const { guard } = options;
  if (guard) {
    app.use((req, res, next) => {
      if (guard(req, res)) next();
    });
  }
  options.configureApp?.(app);
  if (options.middleware && options.middleware.length > 0)
    app.use(MCP_PATHS, ...options.middleware);
  app.use(['/mcp', '/messages'], express.json({ limit: MAX_BODY_BYTES }));
  return app;
}

/** The last handler of the Express app: {@link answerRequestError}. */
export function jsonRpcErrorHandler(counters: ServerCounters, logger: Logger): ErrorRequestHandler {
  return function jsonRpcErrorHandler(error, _req, res, _next) {
    answerRequestError(error, res, counters, logger);
  };
}
