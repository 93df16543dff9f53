// The GET event stream of a 2025 HTTP session answers with its headers at once, before it has
// anything to send (issue 29, item 9): Node holds headers back until the first body write, and
// on an idle server the first write was the keepalive, 15 s later; the Vercel AI SDK gave up on
// the stream and got 409 for opening another. Driven by the official client, which opens this
// stream itself after `initialize`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createServer } from '../server.ts';

test("a 2025 session's GET stream gets its headers before any event, and then the events", async (t) => {
  const server = createServer({ transport: 'http', port: 0 });
  const url = (await server.start()) as string;
  t.after(() => server.close());

  // The client's own fetch, watched: the GET stream's response, and a copy of its body.
  let opened: (stream: { response: Response; copy: ReadableStream<Uint8Array> }) => void;
  const getStream = new Promise<{ response: Response; copy: ReadableStream<Uint8Array> }>(
    (resolve) => (opened = resolve),
  );
  const watchedFetch: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (init?.method !== 'GET' || !response.body) return response;
    const [forClient, copy] = response.body.tee();
    opened({ response, copy });
    return new Response(forClient, { status: response.status, headers: response.headers });
  };
  const client = new Client(
    { name: 'get-stream', version: '1' },
    { versionNegotiation: { mode: 'legacy' } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: watchedFetch }));
  t.after(() => client.close());

  // The headers are here, and the server has had nothing to send yet.
  const { response, copy } = await getStream;
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'text/event-stream');

  // So the first thing on the stream is the change made only now, not a keepalive.
  server.registerTool('late', { description: 'added after the stream opened' }, () => 'late');
  const reader = copy.getReader();
  let text = '';
  while (!text.includes('\n\n')) {
    const { value, done } = await reader.read();
    assert.ok(!done, 'the stream ended');
    text += new TextDecoder().decode(value);
  }
  const first = text.slice(0, text.indexOf('\n\n'));
  assert.match(first, /notifications\/tools\/list_changed/, first);
  // Not awaited: a tee branch's cancel settles only once the client's branch is cancelled too.
  void reader.cancel();
});
