// serveWebTransport: a 2025 answer with an event store (SSE priming event at once, the result a
// moment later) is written as it comes, with no timer in between — the SDK's Node wrapper waited
// a setTimeout tick there (≥ 1 ms on every such call). A later chunk goes out when it comes, and
// a gone client cancels the body.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { test } from 'node:test';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import type { Request, Response } from 'express';
import { kitchenServer, RAW_POST_HEADERS, rawInitialize } from '../__fixtures__/testServer.ts';
import { serveWebTransport } from './webResponse.ts';

/** Serves `transport` on a loopback port, counting the socket writes of each response. */
async function serve(
  t: { after(fn: () => unknown): void },
  transport: WebStandardStreamableHTTPServerTransport,
) {
  const writes: number[] = [];
  const server: Server = createServer((req, res) => {
    const socket = req.socket as Socket & { _writeGeneric: (...args: unknown[]) => unknown };
    const original = socket._writeGeneric;
    const index = writes.push(0) - 1;
    socket._writeGeneric = function (...args: unknown[]) {
      writes[index] += 1;
      return original.apply(this, args);
    };
    void serveWebTransport(transport, req as Request, res as unknown as Response, undefined);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, writes };
}

const encode = (text: string) => new TextEncoder().encode(text);

test('a 2025 tool call with an event store is answered without a timer tick', async (t) => {
  // The SDK's Node wrapper slept a setTimeout tick (no delay given: ≥ 1 ms) whenever the SSE
  // priming event was ready and the result was not — on every such call.
  const server = await kitchenServer({ transport: 'http', port: 0 });
  const url = new URL((await server.start()) as string);
  t.after(() => server.close());
  const session = await rawInitialize(url);
  const ticks: unknown[] = [];
  const original = globalThis.setTimeout;
  t.mock.method(globalThis, 'setTimeout', (...args: Parameters<typeof setTimeout>) => {
    if (!args[1]) ticks.push(args[0]);
    return original(...args);
  });
  const answer = await fetch(url, {
    method: 'POST',
    headers: {
      ...RAW_POST_HEADERS,
      'mcp-session-id': session,
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      // Served by the SDK's transport (a plain tools/call is answered by the session as JSON).
      method: 'tools/list',
    }),
  });
  const body = await answer.text();
  t.mock.restoreAll();
  assert.match(body, /^id: .*\nretry: 1000\n/m);
  assert.match(body, /"name":"echo"/);
  assert.equal(ticks.length, 0, 'timer ticks while answering');
});

test('a chunk that comes later is written when it comes; a gone client cancels the body', async (t) => {
  let later: ((text: string) => void) | undefined;
  let cancelled: () => void = () => undefined;
  const wasCancelled = new Promise<void>((resolve) => {
    cancelled = resolve;
  });
  const transport = {
    handleRequest: async () =>
      new globalThis.Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(encode('id: 1\ndata: \n\n'));
            later = (text) => controller.enqueue(encode(text));
          },
          cancel: () => cancelled(),
        }),
        { headers: { 'content-type': 'text/event-stream' } },
      ),
  } as unknown as WebStandardStreamableHTTPServerTransport;
  const { url } = await serve(t, transport);
  const abort = new AbortController();
  const response = await fetch(url, { signal: abort.signal });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  assert.equal(decoder.decode((await reader.read()).value), 'id: 1\ndata: \n\n');
  later?.('id: 2\ndata: {}\n\n');
  assert.equal(decoder.decode((await reader.read()).value), 'id: 2\ndata: {}\n\n');
  abort.abort();
  await wasCancelled;
});
