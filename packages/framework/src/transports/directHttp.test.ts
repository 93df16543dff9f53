// Plain 2026 `tools/call` requests over HTTP answered by their session (directHttp.ts): the
// same answers, statuses and event streams as the SDK's entry gives, and a client that leaves
// cancels the call.
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { registerDirectCallTools } from '../__fixtures__/directCallTools.ts';
import { createServer } from '../server.ts';

let aborted = 0;

async function startServer(t: TestContext): Promise<string> {
  const server = createServer({ name: 'direct-http', transport: 'http', port: 0 });
  server.registerTool('echo', { inputSchema: { message: z.string() } }, ({ message }) => message);
  server.registerTool('fail', {}, () => {
    throw new Error('the disk is on fire');
  });
  server.registerTool('malformed', {}, () => ({ content: [{ type: 'text' } as never] }));
  server.registerTool('notes', {}, async (ctx) => {
    await ctx.sendNotification({
      method: 'notifications/message',
      params: { level: 'info', data: 'a note about the call' },
    });
    return 'noted';
  });
  // Notes naming its word about its call, the second after a pause: calls running at once.
  server.registerTool('narrate', { inputSchema: { word: z.string() } }, async ({ word }, ctx) => {
    const note = (data: string) =>
      ctx.sendNotification({ method: 'notifications/message', params: { level: 'info', data } });
    await note(`${word} 1`);
    await sleep(150);
    await note(`${word} 2`);
    return word;
  });
  // Answers at once, then sends a note about a call that has already been answered.
  server.registerTool('note_later', { inputSchema: { word: z.string() } }, ({ word }, ctx) => {
    setTimeout(() => {
      const params = { level: 'info' as const, data: `late ${word}` };
      ctx.sendNotification({ method: 'notifications/message', params }).catch(() => {});
    }, 100);
    return word;
  });
  registerDirectCallTools(server, {
    aborted: () => {
      aborted += 1;
    },
  });
  const url = (await server.start()) as string;
  t.after(() => server.close());
  return url;
}

interface Exchange {
  status: number;
  type: string | null;
  /** The JSON-RPC messages of the answer, ids left out. */
  messages: unknown[];
}

let nextId = 1;

/** A 2026 `tools/call`; `logLevel` (which no tool here uses) sends it the SDK's way. */
async function call(
  url: string,
  params: Record<string, unknown>,
  options: { logLevel?: string; signal?: AbortSignal; capabilities?: unknown; id?: number } = {},
): Promise<Exchange> {
  const response = await fetch(url, {
    method: 'POST',
    signal: options.signal,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': String(params.name),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: options.id ?? nextId++,
      method: 'tools/call',
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': options.capabilities ?? {
            elicitation: { form: {} },
          },
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
          ...(options.logLevel && { 'io.modelcontextprotocol/logLevel': options.logLevel }),
        },
      },
    }),
  });
  const text = await response.text();
  const type = response.headers.get('content-type');
  const bodies = type?.startsWith('text/event-stream')
    ? text
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
    : [text];
  const messages = bodies.map((body) => {
    const { id: _id, ...message } = JSON.parse(body) as Record<string, unknown>;
    // Each round's sealed state carries a fresh nonce: equal answers differ there.
    const result = message.result as { requestState?: string } | undefined;
    if (typeof result?.requestState === 'string') result.requestState = 'sealed';
    return message;
  });
  return { status: response.status, type, messages };
}

test('2026 over HTTP: a plain call answered by its session is answered as the SDK answers it', async (t) => {
  const url = await startServer(t);
  const calls: Record<string, unknown>[] = [
    { name: 'echo', arguments: { message: 'hi' } },
    { name: 'echo', arguments: { message: 5 } },
    { name: 'fail', arguments: {} },
    { name: 'missing', arguments: {} },
    { name: 'malformed' },
    { name: 'interview', arguments: {} },
    { name: 'notes', arguments: {} },
    { name: 'request_line', arguments: {} },
  ];
  for (const params of calls) {
    const bySdk = await call(url, params, { logLevel: 'emergency' });
    const bySession = await call(url, params);
    assert.deepEqual(bySession, bySdk, JSON.stringify(params));
  }
  const echoed = await call(url, { name: 'echo', arguments: { message: 'hi' } });
  assert.equal(echoed.status, 200);
  assert.equal(echoed.type, 'application/json');
  assert.deepEqual((echoed.messages[0] as { result: { content: unknown } }).result.content, [
    { type: 'text', text: 'hi' },
  ]);
  // A notification about the call first: the answer is a stream, the note before the result.
  const noted = await call(url, { name: 'notes', arguments: {} });
  assert.equal(noted.type, 'text/event-stream');
  assert.equal((noted.messages[0] as { method: string }).method, 'notifications/message');
  assert.ok('result' in (noted.messages[1] as object));
  // An envelope the SDK's classifier refuses is refused, not answered.
  const refused = await call(
    url,
    { name: 'echo', arguments: { message: 'hi' } },
    {
      capabilities: 'all of them',
    },
  );
  assert.equal(refused.status, 400);
  assert.match(JSON.stringify(refused.messages), /Invalid _meta envelope/);
  // A question: input_required, the SDK's shape.
  const asked = await call(url, { name: 'interview', arguments: {} });
  assert.equal(
    (asked.messages[0] as { result: { resultType: string } }).result.resultType,
    'input_required',
  );
});

test('2026 over HTTP: a client that leaves cancels the call it made', async (t) => {
  const url = await startServer(t);
  const before = aborted;
  const leave = new AbortController();
  const waiting = call(url, { name: 'wait_for_abort', arguments: {} }, { signal: leave.signal });
  await sleep(200);
  // A call running beside it, answered by the same session, is not the one that stops.
  const beside = call(url, { name: 'narrate', arguments: { word: 'beside' } });
  await sleep(50);
  leave.abort();
  await assert.rejects(waiting);
  for (let i = 0; i < 100 && aborted === before; i++) await sleep(20);
  assert.equal(aborted, before + 1);
  assert.deepEqual(
    (await beside).messages.map((m) => (m as { params?: { data: string } }).params?.data),
    ['beside 1', 'beside 2', undefined],
  );
  // The server goes on.
  const echoed = await call(url, { name: 'echo', arguments: { message: 'still here' } });
  assert.equal(echoed.status, 200);
});

test('2026 over HTTP: calls answered at once by the shared session each get only their own messages', async (t) => {
  const url = await startServer(t);
  // Callers choose their ids: two at once with the same id, each with its own notes.
  const [a, b] = await Promise.all(
    ['alpha', 'beta'].map((word) => call(url, { name: 'narrate', arguments: { word } }, { id: 7 })),
  );
  for (const [exchange, word] of [
    [a, 'alpha'],
    [b, 'beta'],
  ] as const) {
    assert.equal(exchange.type, 'text/event-stream');
    assert.deepEqual(
      exchange.messages.map((m) => (m as { params?: { data: string } }).params?.data),
      [`${word} 1`, `${word} 2`, undefined],
    );
    assert.deepEqual((exchange.messages[2] as { result: { content: unknown } }).result.content, [
      { type: 'text', text: word },
    ]);
  }
  // A note sent after its call was answered reaches no later call, though it has the same id.
  const early = await call(url, { name: 'note_later', arguments: { word: 'early' } }, { id: 9 });
  assert.equal(early.type, 'application/json');
  const later = await call(url, { name: 'narrate', arguments: { word: 'later' } }, { id: 9 });
  assert.deepEqual(
    later.messages.map((m) => (m as { params?: { data: string } }).params?.data),
    ['later 1', 'later 2', undefined],
  );
});
