/**
 * The fast lane: the common requests to the Streamable HTTP endpoint served straight from
 * `node:http`, without Express. Express 5 spends about 0.15 ms of CPU on each request (router
 * layers, path matching, body-parser's stream plumbing) — half of what separated mcp-factory's
 * 2025 HTTP call from the bare SDK's (issue 13, bench/echo.ts). Everything else (other paths,
 * legacy SSE, OAuth middleware, compressed or non-JSON bodies, query strings) goes to the app,
 * which has the same endpoint handler mounted, so both lanes answer alike.
 *
 * A request takes the lane when it is a POST, GET or DELETE to exactly the endpoint's path and,
 * for a POST, carries an uncompressed `application/json` body. The lane applies the same
 * DNS-rebinding guard as the app, the same 4 MiB body limit and the same errors for malformed or
 * oversized JSON.
 *
 * @module
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Logger } from '../contract/logger.ts';
import type { ServerCounters } from '../session/stats.ts';
import {
  answerRequestError,
  MAX_BODY_BYTES,
  type McpRequest,
  type RequestGuard,
} from './mcpHttpRequest.ts';
import type { McpHandler } from './streamableHttp.ts';

export interface FastLaneOptions {
  /** The endpoint's path, e.g. `/mcp`. */
  path: string;
  handle: McpHandler;
  /** The app's DNS-rebinding guard, when the bind has one. */
  guard: RequestGuard | undefined;
  counters: ServerCounters;
  logger: Logger;
}

/** A request listener that serves the endpoint's plain requests itself and hands the rest to `app`. */
export function withFastLane(app: RequestListener, options: FastLaneOptions): RequestListener {
  const { path, handle, guard, counters, logger } = options;
  const fail = (error: unknown, res: ServerResponse) =>
    answerRequestError(error, res, counters, logger);
  const serve = (req: McpRequest, res: ServerResponse) => {
    try {
      handle(req, res)?.catch((error: unknown) => fail(error, res));
    } catch (error) {
      fail(error, res);
    }
  };
  return (req, res) => {
    if (req.url !== path || !takesLane(req)) {
      app(req, res);
      return;
    }
    if (guard && !guard(req, res)) return;
    if (req.method !== 'POST') {
      serve(req, res);
      return;
    }
    readJsonBody(req, (error, body) => {
      if (error) return fail(error, res);
      (req as McpRequest).body = body;
      serve(req, res);
    });
  };
}

/** A GET or DELETE, or a POST with an uncompressed JSON body (what body-parser would parse). */
function takesLane(req: IncomingMessage): boolean {
  if (req.method === 'GET' || req.method === 'DELETE') return true;
  if (req.method !== 'POST') return false;
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return false;
  const type = req.headers['content-type'];
  if (type === undefined) return false;
  const semicolon = type.indexOf(';');
  const media = (semicolon === -1 ? type : type.slice(0, semicolon)).trim().toLowerCase();
  if (media !== 'application/json') return false;
  // body-parser reads other charsets (or refuses them with 415); leave those to it.
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(type)?.[1]?.toLowerCase();
  return charset === undefined || charset === 'utf-8';
}

/** An error shaped like body-parser's, for {@link answerRequestError}. */
const bodyError = (type: string) => Object.assign(new Error(type), { type });

/**
 * Reads and parses a JSON body the way body-parser's `json()` does in its default strict mode:
 * an empty body is `{}`, anything but an object or array is a parse error, more than
 * {@link MAX_BODY_BYTES} is refused as too large (the rest of the body is drained, not kept).
 */
function readJsonBody(
  req: IncomingMessage,
  done: (error: Error | undefined, body?: unknown) => void,
): void {
  const declared = Number(req.headers['content-length']);
  const chunks: Buffer[] = [];
  let size = 0;
  let failed = false;
  const tooLarge = () => {
    failed = true;
    chunks.length = 0;
    req.resume();
    done(bodyError('entity.too.large'));
  };
  if (declared > MAX_BODY_BYTES) {
    tooLarge();
    return;
  }
  req.on('data', (chunk: Buffer) => {
    if (failed) return;
    size += chunk.length;
    if (size > MAX_BODY_BYTES) tooLarge();
    else chunks.push(chunk);
  });
  req.on('error', (error) => {
    if (failed) return;
    failed = true;
    done(Object.assign(error, { status: 400 }));
  });
  req.on('end', () => {
    if (failed) return;
    const text = (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString('utf8');
    if (text.length === 0) return done(undefined, {});
    const first = text.trimStart()[0];
    if (first !== '{' && first !== '[') return done(bodyError('entity.parse.failed'));
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return done(bodyError('entity.parse.failed'));
    }
    done(undefined, body);
  });
}

/**
 * A listener that builds the real one (`build`: the Express app) for the first request that
 * reaches it, and hands that and every later request to it. A build that fails answers 500
 * (logged once per request, without detail to the caller), and the next request tries again.
 */
export function onFirstRequest(
  build: () => Promise<RequestListener>,
  counters: ServerCounters,
  logger: Logger,
): RequestListener {
  let built: Promise<RequestListener> | undefined;
  return (req, res) => {
    built ??= build();
    const pending = built;
    pending.then(
      (listener) => listener(req, res),
      (error: unknown) => {
        if (built === pending) built = undefined;
        answerRequestError(error, res, counters, logger);
      },
    );
  };
}
