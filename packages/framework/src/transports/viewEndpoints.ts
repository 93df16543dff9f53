/**
 * Views (virtual servers) over HTTP: each configured view served at `/mcp/<name>` by its own
 * Streamable HTTP endpoint, both eras, every session of it opened for that view.
 *
 * An endpoint is made on a view's first request and kept by name: views come and go with a
 * reload (`access.update`), so the route asks the access control on every request. A path that
 * names no view — never configured, or removed since — gets 404 naming the views there are; a
 * removed view's endpoint is closed then, ending its sessions.
 *
 * The routes sit on the Express app, behind what the app applies to every `/mcp` path: the
 * DNS-rebinding guard, the OAuth middleware and the JSON body parser (httpApp.ts). The fast
 * lane (fastLane.ts) serves `/mcp` alone.
 *
 * @module
 */
import type { ServerResponse } from 'node:http';
import type { Express, Request } from 'express';
import { type AccessControl, unknownViewMessage } from '../access/access.ts';
import type { ServerCounters } from '../session/stats.ts';
import { type McpRequest, sendJsonRpcError } from './mcpHttpRequest.ts';
import type { MountedTransport, StreamableHttpEndpoint } from './streamableHttp.ts';

export interface ViewEndpointsOptions {
  access: AccessControl;
  counters: ServerCounters;
  /** Makes the endpoint that serves view `name`. */
  endpointFor(name: string): StreamableHttpEndpoint;
  /** Where the views sit; default `/mcp` (so `/mcp/<name>`). */
  basePath?: string;
}

/** Mounts `/mcp/:view` on `app`; closing it closes every view's endpoint made so far. */
export function mountViewEndpoints(app: Express, options: ViewEndpointsOptions): MountedTransport {
  const { access, counters, endpointFor } = options;
  const endpoints = new Map<string, StreamableHttpEndpoint>();

  const handle = (req: Request, res: ServerResponse) => {
    const name = req.params.view as string;
    let endpoint = endpoints.get(name);
    if (access.view(name) === undefined) {
      if (endpoint) {
        endpoints.delete(name);
        void endpoint.close();
      }
      counters.errors += 1;
      return sendJsonRpcError(res, 404, -32000, unknownViewMessage(name, access.viewNames()));
    }
    if (!endpoint) {
      endpoint = endpointFor(name);
      endpoints.set(name, endpoint);
    }
    return endpoint.handle(req as McpRequest, res);
  };
  const path = `${options.basePath ?? '/mcp'}/:view`;
  app.post(path, handle);
  app.get(path, handle);
  app.delete(path, handle);
  return {
    async close() {
      const all = [...endpoints.values()];
      endpoints.clear();
      await Promise.allSettled(all.map((endpoint) => endpoint.close()));
    },
  };
}
