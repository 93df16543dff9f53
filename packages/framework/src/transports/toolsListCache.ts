/**
 * The 2026-07-28 `tools/list` answer, serialized once per listing and replayed: a client that
 * lists tools before each turn otherwise pays, every time, for a server built for the request,
 * the SDK's validation of a result that did not change and its serialization (for a catalog of
 * many tools, most of the cost).
 *
 * The first plain `tools/list` for a listing is answered by the SDK as any request; its result
 * is kept, keyed by the listing it showed — the array the session handler's own listing returns
 * (session/handlers/tools.ts), which stays the same until the catalog, the access settings or
 * the view change, and differs by caller where policy does. A later request that gets the same
 * array (and names the same revision) is answered with the kept result under its own id. So a
 * cached answer is exactly what the SDK answered for that listing, and a change is seen at once
 * (the next request computes a new array, a miss).
 *
 * Only the plainest requests take it: a single request with no parameter but the envelope, the
 * `MCP-Protocol-Version` and `Mcp-Method` headers naming what the body does, no `Mcp-Name`, an
 * envelope the SDK's classifier accepts, and neither tracing nor request metrics on (they
 * observe the handler). Everything else goes the SDK's way, which answers every error.
 *
 * @module
 */
import type { ServerResponse } from 'node:http';
import {
  classifyInboundRequest,
  PROTOCOL_VERSION_META_KEY,
  type Tool,
} from '@modelcontextprotocol/server';
import { ANONYMOUS_PRINCIPAL, principalFromAuth } from '../auth/principal.ts';
import { isSingleRequest } from '../protocol/singleRequest.ts';
import type { SessionHub } from '../session/hub.ts';
import { requestsObserved } from '../telemetry/requests.ts';
import type { McpRequest } from './mcpHttpRequest.ts';

const CLIENT_CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';

/** Answers `req` from the cache, or returns how to keep the SDK's answer for the next one. */
export type ToolsListCache = (
  req: McpRequest,
  res: ServerResponse,
) => boolean | ((answer: globalThis.Response) => void);

export function toolsListCache(hub: SessionHub, view: string | undefined): ToolsListCache {
  /** Per listing, the serialized result per protocol revision. */
  const results = new WeakMap<readonly Tool[], Map<string, string>>();
  return (req, res) => {
    const plain = plainToolsList(req);
    if (!plain) return false;
    const principal = principalFromAuth(req.auth) ?? ANONYMOUS_PRINCIPAL;
    let listing: readonly Tool[];
    try {
      listing = hub.listedTools(principal, view, plain.capabilities);
    } catch {
      return false; // the handler's way answers it (an unknown view, …)
    }
    const result = results.get(listing)?.get(plain.revision);
    if (result === undefined) {
      return (answer) => {
        if (answer.status !== 200 || answer.headers.get('content-type') !== 'application/json')
          return;
        answer
          .clone()
          .json()
          .then((message) => {
            const { result } = message as { result?: unknown };
            if (result === undefined) return;
            const byRevision = results.get(listing) ?? new Map<string, string>();
            byRevision.set(plain.revision, JSON.stringify(result));
            results.set(listing, byRevision);
          })
          .catch(() => undefined);
      };
    }
    hub.countAnswered(principal, view);
    const body = Buffer.from(
      `{"result":${result},"jsonrpc":"2.0","id":${JSON.stringify(plain.id)}}`,
    );
    res
      .writeHead(200, { 'content-type': 'application/json', 'content-length': body.length })
      .end(body);
    return true;
  };
}

interface PlainToolsList {
  id: string | number;
  revision: string;
  capabilities: Record<string, unknown> | undefined;
}

/** The request's id, revision and declared capabilities, when it is a plain 2026 `tools/list`. */
function plainToolsList(req: McpRequest): PlainToolsList | undefined {
  const body = req.body;
  if (!isSingleRequest(body) || body.method !== 'tools/list' || requestsObserved()) return;
  const { id, params } = body;
  if (!params) return;
  for (const key in params) if (key !== '_meta') return;
  const meta = (params as { _meta?: Record<string, unknown> })._meta;
  const revision = meta?.[PROTOCOL_VERSION_META_KEY];
  const headers = req.headers;
  if (typeof revision !== 'string' || headers['mcp-protocol-version'] !== revision) return;
  if (headers['mcp-method'] !== 'tools/list' || headers['mcp-name'] !== undefined) return;
  const classified = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: revision,
    mcpMethodHeader: 'tools/list',
    body,
  });
  if (classified.kind !== 'modern') return;
  const capabilities = meta?.[CLIENT_CAPABILITIES_KEY] as Record<string, unknown> | undefined;
  return { id: id as string | number, revision, capabilities };
}
