// Plain calls to a 2025 session over HTTP, answered by the session itself
// (sessionHttpTransport.ts): what the handler sees, elicitation mid-call, cancellation, and a
// session ended while a call runs — with the SDK's 2025 client, and raw where it must be.
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { registerDirectCallTools } from '../__fixtures__/directCallTools.ts';
import { createServer } from '../server.ts';

interface Started {
  url: string;
  /** How many calls saw their signal abort. */
  aborted(): number;
  /** Resolves once a `wait_for_abort` call is running. */
  waiting(): Promise<void>;
}

async function startServer(t: TestContext): Promise<Started> {
  const server = createServer({ name: 'session-http', transport: 'http', port: 0 });
  let aborted = 0;
  let running: () => void = () => undefined;
  let started = new Promise<void>((resolve) => {
    running = resolve;
  });
  server.registerTool('whoami', {}, (ctx) => `session ${ctx.sessionId}`);
  server.registerTool('count', {}, async (ctx) => {
    await ctx.reportProgress(1, 2, 'one');
    await ctx.reportProgress(2, 2, 'two');
    return 'counted';
  });
  registerDirectCallTools(server, {
    running: () => running(),
    aborted: () => {
      aborted += 1;
    },
  });
  const url = (await server.start()) as string;
  t.after(() => server.close());
  return {
    url,
    aborted: () => aborted,
    waiting: async () => {
      await started;
      started = new Promise<void>((resolve) => {
        running = resolve;
      });
    },
  };
}

async function connect(t: TestContext, url: string) {
  const client = new Client(
    { name: 'session-http-client', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  t.after(() => client.close());
  return { client, sessionId: transport.sessionId as string };
}

const text = (result: { content?: unknown }) =>
  (result.content as Array<{ text?: string }> | undefined)?.[0]?.text;

test('the handler sees its session and request; an elicitation mid-call reaches the client and back', async (t) => {
  const { url } = await startServer(t);
  const { client, sessionId } = await connect(t, url);
  client.setRequestHandler('elicitation/create', async () => ({
    action: 'accept',
    content: { name: 'Ada' },
  }));
  const whoami = await client.callTool({ name: 'whoami', arguments: {} });
  assert.equal(text(whoami), `session ${sessionId}`);
  const requestLine = await client.callTool({ name: 'request_line', arguments: {} });
  assert.equal(text(requestLine), 'POST /mcp');
  const interview = await client.callTool({ name: 'interview', arguments: {} });
  assert.equal(text(interview), 'hello Ada');
  // The session goes on serving: the stream of the elicitation is over and nothing is stuck.
  assert.equal(
    text(await client.callTool({ name: 'whoami', arguments: {} })),
    whoami && text(whoami),
  );
});

test('a call with a progress token streams its progress, then its answer', async (t) => {
  const { url } = await startServer(t);
  const { client } = await connect(t, url);
  const progress: Array<string | undefined> = [];
  const result = await client.callTool(
    { name: 'count', arguments: {} },
    { onprogress: (p) => progress.push(p.message) },
  );
  assert.equal(text(result), 'counted');
  assert.deepEqual(progress, ['one', 'two']);
});

test('a client that cancels a call aborts its handler', async (t) => {
  const server = await startServer(t);
  const { client } = await connect(t, server.url);
  const controller = new AbortController();
  const call = client.callTool(
    { name: 'wait_for_abort', arguments: {} },
    { signal: controller.signal },
  );
  await server.waiting();
  controller.abort('changed my mind');
  await assert.rejects(call);
  for (let i = 0; i < 100 && server.aborted() === 0; i++)
    await new Promise((r) => setTimeout(r, 10));
  assert.equal(server.aborted(), 1);
  assert.equal(
    text(await client.callTool({ name: 'whoami', arguments: {} }))?.startsWith('session '),
    true,
  );
});

test('ending the session ends the answer of a call still running, and aborts it', async (t) => {
  const server = await startServer(t);
  const { sessionId } = await connect(t, server.url);
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-session-id': sessionId,
    'mcp-protocol-version': '2025-11-25',
  };
  const answer = fetch(server.url, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 'w',
      method: 'tools/call',
      params: { name: 'wait_for_abort', arguments: {} },
    }),
  });
  await server.waiting();
  const ended = await fetch(server.url, { method: 'DELETE', headers });
  assert.equal(ended.status, 200);
  const response = await answer;
  assert.equal(await response.text(), '', 'no answer for a call whose session is gone');
  assert.equal(server.aborted(), 1);
});

test('a stream closed mid-call resumes with what it missed, on one connection at a time', async (t) => {
  const server = createServer({ name: 'session-http-resume', transport: 'http', port: 0 });
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let missedSent: () => void = () => undefined;
  const missed = new Promise<void>((resolve) => {
    missedSent = resolve;
  });
  server.registerTool('poll_me', {}, async (ctx) => {
    await ctx.log('info', 'before the close');
    ctx.closeSSEStream?.();
    await ctx.log('info', 'while away');
    missedSent();
    await released;
    return 'done';
  });
  const url = (await server.start()) as string;
  t.after(() => server.close());
  const { sessionId } = await connect(t, url);
  const headers = {
    accept: 'application/json, text/event-stream',
    'mcp-session-id': sessionId,
    'mcp-protocol-version': '2025-11-25',
  };
  const events = (text: string) =>
    text
      .split('\n\n')
      .filter((frame) => frame.includes('data: {'))
      .map((frame) => ({
        id: /^id: (\S+)$/m.exec(frame)?.[1],
        message: JSON.parse(/^data: (.*)$/m.exec(frame)?.[1] as string),
      }));

  const first = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 'p',
      method: 'tools/call',
      params: { name: 'poll_me', arguments: {} },
    }),
  });
  assert.equal(first.headers.get('content-type'), 'text/event-stream');
  const before = events(await first.text()); // ends where the tool closed it
  assert.deepEqual(
    before.map((e) => e.message.params?.data),
    ['before the close'],
  );
  await missed;

  const resume = () =>
    fetch(url, { headers: { ...headers, 'last-event-id': before[0].id as string } });
  const resumed = await resume();
  assert.equal(resumed.status, 200);
  const second = await resume();
  assert.equal(second.status, 409, 'a second connection for the same stream is refused');
  await second.text();
  release();
  const after = events(await resumed.text());
  assert.deepEqual(
    after.map((e) => e.message.params?.data ?? e.message.result?.content?.[0]?.text),
    ['while away', 'done'],
  );
});
