/**
 * The tool server's node:http side: the routes (`GET /status`, `POST /run`, `POST /result`), the
 * token check before a body is read, the body limit and the JSON replies. Requests of the one shape kernel
 * code sends over and over are answered on the lane (`runLane.ts`) instead; everything else lands
 * here, and both hand a call to the same {@link HttpRoutes.call}, so the two paths answer alike.
 *
 * @module
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { bearerTokenMatches } from '../bearerTokens.ts';

/** What the routes need from the tool server. */
export interface HttpRoutes {
  /** Token `POST /run` and `POST /result` must carry. */
  readonly token: string;
  /** Largest accepted request body, bytes. */
  readonly maxBodyBytes: number;
  /** Runs one call, its body read and its token checked; HTTP 200 once it was understood. */
  call(
    headers: IncomingHttpHeaders,
    body: string,
    signal: AbortSignal,
  ): Promise<{ status: number; body: unknown }>;
  /** Reads a stored result for kernel code (`resultRoute.ts`), its token checked. */
  result(body: string): Promise<{ status: number; body: unknown }>;
}

/** Serves one request that node:http parsed. */
export async function handleHttpRequest(
  request: IncomingMessage,
  response: ServerResponse,
  routes: HttpRoutes,
): Promise<void> {
  const path = pathOf(request.url);
  if (path === '/status') {
    if (request.method !== 'GET') return reply(response, 405, { error: 'use GET' });
    return reply(response, 200, { status: 'ok' });
  }
  if (path !== '/run' && path !== '/result') {
    return reply(response, 404, { error: `no route ${path}` });
  }
  if (request.method !== 'POST') return reply(response, 405, { error: 'use POST' });
  const maxBytes = routes.maxBodyBytes;
  // Checked before the body is read: a caller without the token gets nothing more.
  if (!bearerTokenMatches(request.headers.authorization, routes.token)) {
    return reply(response, 401, { error: 'missing or wrong tool server token' });
  }
  const body = await readBody(request, maxBytes);
  if (body === undefined) {
    return reply(response, 413, {
      error: `request body over ${maxBytes} bytes`,
      type: 'bad_request',
    });
  }
  if (path === '/result') {
    const answer = await routes.result(body);
    return reply(response, answer.status, answer.body);
  }
  // The caller going away (kernel interrupted) cancels approval and the upstream request.
  const aborted = new AbortController();
  response.on('close', () => {
    if (!response.writableFinished) aborted.abort();
  });
  const answer = await routes.call(request.headers, body, aborted.signal);
  if (!aborted.signal.aborted) reply(response, answer.status, answer.body);
}

/** Writes `body` as JSON with `status`. */
export function reply(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
  });
  response.end(text);
}

/** The request's path. The two that kernel code sends as they are, others parsed (every call). */
function pathOf(url: string | undefined): string {
  if (url === '/run' || url === '/status') return url;
  return new URL(url ?? '/', 'http://localhost').pathname;
}

/** The body as text, or `undefined` when it exceeds `maxBytes` (reading stops there). */
function readBody(request: IncomingMessage, maxBytes: number): Promise<string | undefined> {
  const length = Number(request.headers['content-length']);
  return length <= maxBytes ? readWholeBody(request) : readBodyUpTo(request, maxBytes);
}

/**
 * A body whose `Content-Length` is within the limit (the parser delivers no more than that): what
 * every tool call from kernel code sends. By events rather than `for await`, whose async
 * iterator and end-of-stream watcher cost more than the rest of reading a small body.
 */
function readWholeBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const stop = () => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
      request.off('close', onClose);
    };
    const onData = (chunk: Buffer) => void chunks.push(chunk);
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    const onClose = () => {
      stop();
      reject(new Error('the request was closed before its body ended'));
    };
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
    request.on('close', onClose);
  });
}

/** A body of unknown or too large a length, counted as it comes. */
async function readBodyUpTo(
  request: IncomingMessage,
  maxBytes: number,
): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
