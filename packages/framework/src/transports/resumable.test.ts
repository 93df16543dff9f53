// resumable_streams: on (default), 2025 SSE responses carry event ids and a retry: priming event
// (Last-Event-ID resumption); off, plain SSE without ids. Real server, raw HTTP.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RAW_POST_HEADERS, rawInitialize } from '../__fixtures__/testServer.ts';
import { createServer } from '../server.ts';

async function streamedListing(
  resumable: boolean | undefined,
  t: { after: (fn: () => Promise<void>) => void },
) {
  const server = createServer({ transport: 'http', port: 0, resumableStreams: resumable });
  const url = (await server.start()) as string;
  t.after(() => server.close());
  const session = await rawInitialize(url);
  const listed = await fetch(url, {
    method: 'POST',
    headers: {
      ...RAW_POST_HEADERS,
      'mcp-session-id': session,
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }),
  });
  return listed.text();
}

test('resumable streams by default: event ids and a retry hint on 2025 SSE responses', async (t) => {
  const body = await streamedListing(undefined, t);
  assert.match(body, /^id: /m);
  assert.match(body, /^retry: 1000/m);
  assert.match(body, /"tools"/);
});

test('resumable_streams off: the same answer without ids or priming events', async (t) => {
  const body = await streamedListing(false, t);
  assert.doesNotMatch(body, /^id: /m);
  assert.doesNotMatch(body, /^retry: /m);
  assert.match(body, /"tools"/);
});
