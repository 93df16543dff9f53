/**
 * Sending an operation's request and turning the answer into a tool result. The call ends when
 * the caller cancels (the tool call's signal) or after the timeout, whichever comes first; a
 * redirect is followed only to the same origin (credentials never travel to another host); the
 * response is read up to a bound. A JSON answer becomes structured content plus its text; a
 * non-2xx answer is a tool error with the status and the API's body, cut to 4 KiB.
 *
 * @module
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { isJson } from './operation.ts';
import type { HttpRequest } from './request.ts';

export interface SendOptions {
  signal: AbortSignal;
  timeoutMs: number;
  maxResponseBytes: number;
  /** Whether the tool declares an output schema (structured content must then be an object). */
  structured: boolean;
}

const MAX_REDIRECTS = 5;
const ERROR_BODY_BYTES = 4096;

/** Sends `request`; never throws for what the API answers, only for what a caller must see. */
export async function send(request: HttpRequest, options: SendOptions): Promise<CallToolResult> {
  // A timer and a listener of our own rather than AbortSignal.any/timeout: Node 20 may collect
  // a composite signal while fetch waits, and then the timeout never fires.
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error('timeout')), options.timeoutMs);
  const cancel = () => controller.abort(options.signal.reason);
  if (options.signal.aborted) cancel();
  options.signal.addEventListener('abort', cancel, { once: true });
  try {
    return await exchange(request, options, controller.signal);
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener('abort', cancel);
  }
}

async function exchange(
  request: HttpRequest,
  options: SendOptions,
  signal: AbortSignal,
): Promise<CallToolResult> {
  const what = `${request.method} ${request.url.origin}${request.url.pathname}`;
  let response: Response;
  try {
    response = await follow(request, signal);
  } catch (error) {
    if (options.signal.aborted) throw error;
    if (signal.aborted) {
      return failure(`${what}: no answer within ${options.timeoutMs / 1000} s (timeout)`);
    }
    return failure(`${what}: ${causeOf(error)}`);
  }
  const limit = response.ok ? options.maxResponseBytes : ERROR_BODY_BYTES;
  let read: { text: string; cut: boolean };
  try {
    read = await readBounded(response, limit);
  } catch (error) {
    if (options.signal.aborted) throw error;
    if (signal.aborted) {
      return failure(`${what}: no whole answer within ${options.timeoutMs / 1000} s (timeout)`);
    }
    return failure(`${what}: the answer broke off: ${causeOf(error)}`);
  }
  if (!response.ok) {
    const body = read.text + (read.cut ? ' … (cut)' : '');
    return failure(
      `${what} answered ${response.status} ${response.statusText}${body ? `: ${body}` : ''}`,
    );
  }
  if (read.cut) {
    return failure(
      `${what}: the answer is larger than ${options.maxResponseBytes} bytes (max_response_bytes); ask for less (filters, paging)`,
    );
  }
  return success(read.text, response.headers.get('content-type') ?? '', options.structured, what);
}

/** Fetches without following redirects, then follows those that stay on the same origin. */
async function follow(request: HttpRequest, signal: AbortSignal): Promise<Response> {
  let url = request.url;
  let method = request.method;
  let body = request.body;
  for (let hop = 0; ; hop++) {
    const response = await fetch(url, {
      method,
      headers: request.headers,
      body,
      signal,
      redirect: 'manual',
    });
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || !location) return response;
    const next = new URL(location, url);
    await response.body?.cancel();
    if (next.origin !== request.url.origin) {
      throw new Error(`redirected to another host (${next.origin}), which is not followed`);
    }
    if (hop >= MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects`);
    // 303 (and, by custom, 301/302 after a POST) turns the request into a GET without a body.
    if (
      response.status === 303 ||
      ((response.status === 301 || response.status === 302) && method === 'POST')
    ) {
      method = 'GET';
      body = undefined;
    }
    url = next;
  }
}

/** The body as text, at most `limit` bytes (the rest is not read). */
async function readBounded(
  response: Response,
  limit: number,
): Promise<{ text: string; cut: boolean }> {
  if (!response.body) return { text: '', cut: false };
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body.getReader();
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return { text: Buffer.concat(chunks).subarray(0, limit).toString('utf8'), cut: true };
    }
  }
  return { text: Buffer.concat(chunks).toString('utf8'), cut: false };
}

function success(
  text: string,
  contentType: string,
  structured: boolean,
  what: string,
): CallToolResult {
  if (!isJson(contentType)) {
    if (structured) {
      return failure(
        `${what} answered ${contentType || 'no content type'}, not the JSON its document promises`,
      );
    }
    return { content: [{ type: 'text', text }] };
  }
  let value: unknown;
  try {
    value = text === '' ? null : JSON.parse(text);
  } catch {
    return failure(`${what} answered invalid JSON: ${text.slice(0, 200)}`);
  }
  const isObject = value !== null && typeof value === 'object' && !Array.isArray(value);
  if (structured && !isObject) {
    return failure(
      `${what} answered ${JSON.stringify(value)?.slice(0, 200)}, not the object its document promises`,
    );
  }
  return {
    content: [{ type: 'text', text }],
    ...(isObject && { structuredContent: value as Record<string, unknown> }),
  };
}

function failure(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** Node's fetch says only "fetch failed"; the reason is in `cause`. */
function causeOf(error: unknown): string {
  const cause = (error as { cause?: { message?: string; code?: string } })?.cause;
  const message = error instanceof Error ? error.message : String(error);
  return cause?.message ? `${message} (${cause.code ?? cause.message})` : message;
}
