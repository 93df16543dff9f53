/**
 * What every HTTP route to MCP shares, through Express or not (fastLane.ts): the request as the
 * handlers see it, the body limit, the DNS-rebinding guard, and how a request that failed is
 * answered. Apart from httpApp.ts so that serving the common requests loads no Express.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';
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
