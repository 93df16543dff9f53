/**
 * JSON replies for the toolkit's plain node:http listeners (health, management, the MCP
 * transports' own errors): one shape of headers, so every listener answers alike.
 *
 * @module
 */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

/**
 * Writes `body` as JSON with its length and `Cache-Control: no-store` (answers describe live
 * state), plus `headers`. A HEAD request gets the headers only.
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers?: OutgoingHttpHeaders,
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(res.req?.method === 'HEAD' ? undefined : text);
}

/** A JSON-RPC error with no id, the form the SDK uses for transport-level rejections. */
export function sendJsonRpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });
}
