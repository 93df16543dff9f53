/**
 * The shape the fast paths take (a plain `tools/call`, `tools/list` or `ping` answered past the
 * SDK): a body that is one JSON-RPC request and nothing else. Anything else — a batch, a
 * response, extra members, an id that is not a string or a safe integer, params that are not an
 * object — is the SDK's to serve, and to refuse.
 *
 * @module
 */
import { isPlainObject } from './plainObject.ts';

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);

export interface SingleRequest {
  jsonrpc: '2.0';
  id: string | number;
  method: string;
  params?: Record<string, unknown>;
}

export function isSingleRequest(body: unknown): body is SingleRequest {
  if (!isPlainObject(body)) return false;
  for (const key in body) if (!REQUEST_KEYS.has(key)) return false;
  const { jsonrpc, id, method, params } = body;
  if (jsonrpc !== '2.0' || typeof method !== 'string') return false;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return false;
  return params === undefined || isPlainObject(params);
}
