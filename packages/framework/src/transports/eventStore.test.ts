import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createServer } from '../server.ts';
import { BoundedEventStore } from './eventStore.ts';

const note = (n: number): JSONRPCMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/message',
  params: { level: 'info', data: n },
});

async function replay(store: BoundedEventStore, lastEventId: string) {
  const sent: [string, JSONRPCMessage][] = [];
  const stream = await store.replayEventsAfter(lastEventId, {
    send: async (id, message) => {
      sent.push([id, message]);
    },
  });
  return { stream, sent };
}

test('replays the events of the same stream after the given id, skipping priming events', async () => {
  const store = new BoundedEventStore();
  const priming = await store.storeEvent('a', {} as JSONRPCMessage);
  const a1 = await store.storeEvent('a', note(1));
  await store.storeEvent('b', note(2));
  const a3 = await store.storeEvent('a', note(3));
  assert.equal(await store.getStreamIdForEventId(a1), 'a');

  const fromPriming = await replay(store, priming);
  assert.equal(fromPriming.stream, 'a');
  assert.deepEqual(fromPriming.sent, [
    [a1, note(1)],
    [a3, note(3)],
  ]);
  assert.deepEqual((await replay(store, a3)).sent, []);
});

test('keeps at most maxEvents and about maxBytes; a dropped id is refused', async () => {
  const store = new BoundedEventStore({ maxEvents: 3 });
  const first = await store.storeEvent('a', note(1));
  for (let i = 2; i <= 5; i++) await store.storeEvent('a', note(i));
  assert.equal(store.size, 3);
  assert.equal(await store.getStreamIdForEventId(first), undefined);
  await assert.rejects(replay(store, first), /unknown or no longer kept/);

  const small = new BoundedEventStore({ maxBytes: 2 * JSON.stringify(note(1)).length });
  for (let i = 1; i <= 4; i++) await small.storeEvent('a', note(i));
  assert.equal(small.size, 2);
  // One event larger than the budget is still kept: it may be the response in flight.
  await small.storeEvent('a', { ...note(0), params: { level: 'info', data: 'x'.repeat(500) } });
  assert.equal(small.size, 1);
});

test('a tool that closes its SSE stream mid-call still delivers its result after the client resumes', async (t) => {
  const server = createServer({ name: 'resume-test', transport: 'http' });
  let closed = false;
  server.registerTool(
    'poll_me',
    { description: 'Closes its stream, then answers.' },
    async (ctx) => {
      await ctx.log('info', 'before close');
      ctx.closeSSEStream?.();
      closed = ctx.closeSSEStream !== undefined;
      await sleep(50);
      await ctx.log('info', 'after close');
      return 'done after reconnect';
    },
  );
  const url = (await server.start()) ?? '';
  t.after(() => server.close());

  const client = new Client({ name: 'resume-client', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    reconnectionOptions: {
      initialReconnectionDelay: 10,
      maxReconnectionDelay: 100,
      reconnectionDelayGrowFactor: 1,
      maxRetries: 5,
    },
  });
  await client.connect(transport);
  t.after(() => client.close());
  const result = await client.callTool({ name: 'poll_me', arguments: {} });
  assert.equal(closed, true, 'the SDK client (2025-11-25) gets closeSSEStream');
  assert.deepEqual(result.content, [{ type: 'text', text: 'done after reconnect' }]);
});

test('POST streams start with a priming event carrying retry for 2025-11-25 clients', async (t) => {
  const server = createServer({ name: 'priming-test', transport: 'http' });
  server.registerTool('hi', { description: 'Says hi.' }, () => 'hi');
  server.registerTool('chatty', { description: 'Logs, then says hi.' }, async (ctx) => {
    await ctx.log('info', 'about to say hi');
    return 'hi';
  });
  const url = (await server.start()) ?? '';
  t.after(() => server.close());
  const client = new Client({ name: 'priming-client', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  t.after(() => client.close());
  const post = (id: number, method: string, params: object) =>
    fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': transport.sessionId ?? '',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
    });

  // Answered by the session itself: one JSON body, nothing to resume (a progress token too,
  // when nothing is sent before the answer).
  for (const [id, params] of [
    [6, { name: 'hi' }],
    [7, { name: 'hi', _meta: { progressToken: 'p' } }],
  ] as const) {
    const plain = await post(id, 'tools/call', params);
    assert.equal(plain.headers.get('content-type'), 'application/json');
    assert.equal(plain.headers.get('mcp-session-id'), transport.sessionId);
    assert.deepEqual(await plain.json(), {
      jsonrpc: '2.0',
      id,
      result: { content: [{ type: 'text', text: 'hi' }] },
    });
  }

  // Something sent before the answer makes it a stream (a progress token alone does not); the
  // SDK's transport streams whatever it serves (`tools/list`).
  for (const [id, method, params] of [
    [8, 'tools/call', { name: 'chatty', _meta: { progressToken: 'p' } }],
    [9, 'tools/list', {}],
  ] as const) {
    const streamed = await post(id, method, params);
    assert.equal(streamed.headers.get('content-type'), 'text/event-stream');
    const body = await streamed.text();
    assert.match(body, /^id: \S+\nretry: 1000\ndata: \n\n/);
    assert.match(body, new RegExp(`"id":${id}`));
    if (id === 8) assert.match(body, /about to say hi[\s\S]*"text":"hi"/);
  }
});
