/**
 * Serves one Node request with the SDK's web-standard Streamable HTTP transport (or its 2026
 * handler) and writes the `Response` it returns back to Node, each body chunk as soon as it comes.
 *
 * Instead of the SDK's Node wrapper (`NodeStreamableHTTPServerTransport`), because that wrapper
 * (through @hono/node-server) waits a timer tick — at least a millisecond — whenever a response's
 * first chunk is ready and its second is not. With an event store that is every 2025 call: the
 * SDK queues the SSE priming event before the handler runs, the result follows a moment later
 * (issue 13: mcp-factory's 2025 HTTP echo at 2.7× the bare SDK with resumable streams, 1.03×
 * without). Writes made in one turn of the event loop are corked together, so a quick result
 * leaves in one packet with the headers and the priming event.
 *
 * @module
 */

import type { ServerResponse } from 'node:http';
import { toWebRequest } from '@modelcontextprotocol/node';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { type McpRequest, sendJsonRpcError } from './mcpHttpRequest.ts';

/** `transport.handleRequest` for Node: the request (its parsed body), then the response. */
export function serveWebTransport(
  transport: WebStandardStreamableHTTPServerTransport,
  req: McpRequest,
  res: ServerResponse,
  parsedBody: unknown,
): Promise<void> {
  return serveWeb(
    (request) => transport.handleRequest(request, { authInfo: req.auth, parsedBody }),
    req,
    res,
    parsedBody,
  );
}

/**
 * Serves one Node request with a web-standard handler (`fetch` of the SDK's `createMcpHandler`,
 * a transport's `handleRequest`): what `toNodeHandler` does, with the writing described above
 * and, for a body already parsed, a `Request` without a body. The handlers take a parsed body
 * from their options and never read the request's own, so serializing it again (as
 * `toWebRequest` does) and wrapping it in a stream was wasted work on every call.
 */
export async function serveWeb(
  fetch: (request: globalThis.Request) => Promise<globalThis.Response>,
  req: McpRequest,
  res: ServerResponse,
  parsedBody: unknown,
): Promise<void> {
  // The request's signal ends with the connection (a client gone before its answer).
  const gone = new AbortController();
  const onClose = () => {
    if (!res.writableFinished) gone.abort();
  };
  res.once('close', onClose);
  let response: globalThis.Response;
  try {
    const request =
      parsedBody === undefined
        ? await toWebRequest(req, parsedBody, { signal: gone.signal })
        : bodilessRequest(req, gone.signal);
    response = await fetch(request);
  } catch {
    res.off('close', onClose);
    if (!res.headersSent) sendJsonRpcError(res, 500, -32603, 'Internal error');
    return;
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) headers[name] = value;
  if (headers['content-type'] === 'application/json' && response.body) {
    // A whole answer: one write, no stream to pump.
    const body = Buffer.from(await response.arrayBuffer());
    headers['content-length'] = String(body.length); // not chunked
    res.writeHead(response.status, headers).end(body);
    return;
  }
  // Uncorked exactly once: at the end of this turn, or before the end of an answer finished
  // sooner. Node 22's end() leaves a socket corked by the response corked, with the answer in it.
  let corked = true;
  const uncork = () => {
    if (!corked) return;
    corked = false;
    res.uncork();
  };
  res.cork();
  setImmediate(uncork);
  res.writeHead(response.status, headers);
  // Into the corked socket, so they still leave with the first chunk when one is ready; without
  // it Node holds the headers back until the first body write, and a stream with nothing to say
  // yet (a 2025 GET stream) would answer only with its first event or keepalive (15 s). After
  // writeHead() `res.headersSent` is already true, so it cannot tell whether they went out.
  res.flushHeaders();
  if (!response.body) {
    uncork();
    res.end();
    return;
  }
  await pipeBody(response.body, res, uncork);
}

const UNFRAMED = new Set(['content-length', 'content-encoding', 'transfer-encoding']);

/**
 * The web `Request` of a request whose body is already parsed (a handler's `ctx.http.req`), its
 * signal aborted when the client leaves before its answer.
 */
export function requestOf(req: McpRequest, res: ServerResponse): globalThis.Request {
  const gone = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  return bodilessRequest(req, gone.signal);
}

/** The web `Request` of a Node request whose body is already parsed: its method, URL and headers. */
function bodilessRequest(req: McpRequest, signal: AbortSignal): globalThis.Request {
  const headers = new Headers();
  for (const name in req.headers) {
    const value = req.headers[name];
    // The body is not in this request, so neither is its framing.
    if (value === undefined || name.startsWith(':') || UNFRAMED.has(name)) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  const host = req.headers.host ?? 'localhost';
  return new Request(`http://${host}${req.url ?? '/'}`, {
    method: req.method ?? 'GET',
    headers,
    signal,
  });
}

/**
 * Writes the body's chunks to `res` (minding backpressure) until it ends or `res` closes;
 * `beforeEnd` runs before the response is ended.
 */
async function pipeBody(
  body: ReadableStream<Uint8Array>,
  res: ServerResponse,
  beforeEnd: () => void,
): Promise<void> {
  const reader = body.getReader();
  const cancel = () => {
    reader.cancel().catch(() => undefined);
  };
  res.once('close', cancel);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) return;
      if (!res.write(value)) {
        await new Promise<void>((resolve) => {
          const resume = () => {
            res.off('drain', resume);
            res.off('close', resume);
            resolve();
          };
          res.once('drain', resume);
          res.once('close', resume);
        });
      }
    }
    beforeEnd();
    res.end();
  } catch (error) {
    res.destroy(error instanceof Error ? error : new Error(String(error)));
  } finally {
    res.off('close', cancel);
  }
}
