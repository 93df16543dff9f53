// One plugin API, both protocol eras: real SDK v2 clients (2025 sessions and 2026 requests) over
// real HTTP against one server. The handler awaits `ctx.elicit` and `ctx.sample` the same way for
// both; 2025 clients answer real server→client requests, 2026 clients answer `input_required`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { firstText, rawModern, toolListener } from '@mcpbox/test-utils';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { ERAS, type Era, versionOfEra } from '../protocol/era.ts';
import { createServer, type McpboxServer } from '../server.ts';

type After = { after: (fn: () => Promise<void>) => void };

/** Side effects before the first question run once per round in 2026: counted here. */
let runs = 0;

async function startServer(t: After): Promise<{ server: McpboxServer; url: string }> {
  const server = createServer({ name: 'eras', transport: 'http', port: 0 });
  server.registerTool(
    'interview',
    { inputSchema: { topic: z.string() } },
    async ({ topic }, ctx) => {
      runs++;
      const name = await ctx.elicit({
        mode: 'form',
        message: `Your name, for ${topic}?`,
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
      });
      if (name.action !== 'accept') return `declined (${name.action})`;
      const poem = await ctx.sample({
        messages: [
          { role: 'user', content: { type: 'text', text: `a poem for ${name.content?.name}` } },
        ],
        maxTokens: 50,
      });
      const text =
        !Array.isArray(poem.content) && poem.content.type === 'text' ? poem.content.text : '';
      return `${name.content?.name}: ${text}`;
    },
  );
  const url = (await server.start()) as string;
  t.after(() => server.close());
  return { server, url };
}

async function connect(url: string, era: Era, t: After, answer = 'Ada'): Promise<Client> {
  const client = new Client(
    { name: `client-${era}`, version: '1.0.0' },
    {
      capabilities: { elicitation: { form: {} }, sampling: {} },
      versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: versionOfEra(era) } },
    },
  );
  client.setRequestHandler('elicitation/create', async () =>
    answer === 'decline' ? { action: 'decline' } : { action: 'accept', content: { name: answer } },
  );
  client.setRequestHandler('sampling/createMessage', async (request) => ({
    role: 'assistant',
    model: 'test-model',
    content: { type: 'text', text: `roses (${request.params.maxTokens})` },
  }));
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  t.after(() => client.close());
  assert.equal(client.getProtocolEra(), era);
  return client;
}

for (const era of ERAS) {
  test(`${era}: ctx.elicit and ctx.sample round trips in one handler`, async (t) => {
    const { url } = await startServer(t);
    const client = await connect(url, era, t);
    runs = 0;
    const result = await client.callTool({ name: 'interview', arguments: { topic: 'tests' } });
    assert.equal(firstText(result), 'Ada: roses (50)');
    // 2025: one run with two live requests; 2026: a run per round (ask, ask, answer).
    assert.equal(runs, era === 'legacy' ? 1 : 3);

    const declined = await connect(url, era, t, 'decline');
    assert.equal(
      firstText(await declined.callTool({ name: 'interview', arguments: { topic: 'x' } })),
      'declined (decline)',
    );
  });
}

test('modern: a client that declared no elicitation gets -32021 naming the capability', async (t) => {
  const { url } = await startServer(t);
  const client = new Client(
    { name: 'bare', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  t.after(() => client.close());
  await assert.rejects(client.callTool({ name: 'interview', arguments: { topic: 'x' } }), {
    code: -32021,
    message: /does not support elicitation/,
  });
});

/** A raw 2026 `tools/call` POST, with the headers and envelope the spec requires. */
function rawModernCall(url: string, params: Record<string, unknown>) {
  return rawModern(url, 'tools/call', params, {
    capabilities: { elicitation: { form: {} }, sampling: {} },
  });
}

test('modern: a forged, edited or foreign requestState is refused; the server stays up', async (t) => {
  const { url } = await startServer(t);
  const first = await rawModernCall(url, { name: 'interview', arguments: { topic: 'a' } });
  assert.equal(first.result?.resultType, 'input_required');
  const state = first.result?.requestState as string;
  assert.ok(state);

  const answer = { q0: { action: 'accept', content: { name: 'Eve' } } };
  const forged = await rawModernCall(url, {
    name: 'interview',
    arguments: { topic: 'a' },
    inputResponses: answer,
    requestState: `${state.slice(0, -4)}AAAA`,
  });
  assert.equal(forged.error?.code, -32602, JSON.stringify(forged));

  // The genuine state carried to another call (other arguments) is refused too.
  const foreign = await rawModernCall(url, {
    name: 'interview',
    arguments: { topic: 'b' },
    inputResponses: answer,
    requestState: state,
  });
  assert.match(JSON.stringify(foreign), /does not belong to this/);

  // A wrong-shape answer: a sampling result where an elicitation was asked.
  const wrongShape = await rawModernCall(url, {
    name: 'interview',
    arguments: { topic: 'a' },
    inputResponses: { q0: { role: 'assistant', model: 'm', content: { type: 'text', text: 'x' } } },
    requestState: state,
  });
  assert.match(
    JSON.stringify(wrongShape),
    /not an elicitation result|different questions|expected an elicitation/,
  );

  // And the genuine continuation still works.
  const next = await rawModernCall(url, {
    name: 'interview',
    arguments: { topic: 'a' },
    inputResponses: answer,
    requestState: state,
  });
  assert.equal(next.result?.resultType, 'input_required', JSON.stringify(next));
});

test('a 2025 and a 2026 client on one server both hear about a tool added at runtime', async (t) => {
  const { server, url } = await startServer(t);
  const listeners = [
    await toolListener(url, 'legacy', 'late', t),
    await toolListener(url, 'modern', 'late', t),
  ];
  // Give the 2026 client's subscriptions/listen stream a moment to be acknowledged.
  await new Promise((resolve) => setTimeout(resolve, 300));
  server.registerTool('late', { description: 'added later' }, () => 'late');
  for (const { heard } of listeners) assert.ok((await heard).includes('interview'));
});

test('modern: an answer only answers the question it was given for', async (t) => {
  const server = createServer({ name: 'drift', transport: 'http', port: 0 });
  let run = 0;
  server.registerTool('drifting', {}, async (ctx) => {
    run++;
    const answer = await ctx.elicit({
      mode: 'form',
      message: `Approve call number ${run}?`,
      requestedSchema: { type: 'object', properties: { approve: { type: 'boolean' } } },
    });
    return `approved ${run}: ${answer.action}`;
  });
  const url = (await server.start()) as string;
  t.after(() => server.close());
  const first = await rawModernCall(url, { name: 'drifting', arguments: {} });
  const state = first.result?.requestState as string;
  assert.ok(state);
  // The run that reads the answer asks "number 2", but the user approved "number 1".
  const second = await rawModernCall(url, {
    name: 'drifting',
    arguments: {},
    inputResponses: { q0: { action: 'accept', content: { approve: true } } },
    requestState: state,
  });
  assert.doesNotMatch(JSON.stringify(second), /approved 2: accept/);
  assert.match(JSON.stringify(second), /different question/);
});
