/**
 * 2026 input rounds are single-use, end to end: the real mcp-factory bin over HTTP serving a
 * plugin whose tool pays once the user confirms, and real SDK v2 clients of the 2026 era — one
 * answering `input_required` by hand (as a replaying client would), one answering on its own.
 * A completed round sent again is refused and pays nothing, on the replica that answered it and
 * on another one sharing its Redis; a retry refused for a malformed answer may be sent again
 * with a proper one.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  FACTORY_BIN,
  runServerBin,
  startRedisServer,
  TEST_CLUSTER_SECRET,
} from '@mcpbox/test-utils';
import {
  type CallToolResult,
  Client,
  type InputRequiredResult,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { testdir } from '../../proxy/__fixtures__/testdir.ts';

type After = { after(fn: () => unknown): void };

const PAY = `
let paid = 0;
export function register(server) {
  server.registerTool('pay', { description: 'pays 100 once the user confirms' }, async (ctx) => {
    const answer = await ctx.elicit({
      message: 'Pay 100?',
      requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
    });
    if (answer.action !== 'accept' || answer.content?.ok !== true) return 'not paid';
    paid += 1;
    return 'paid, payments so far: ' + paid;
  });
}
`;

/** mcp-factory serving `pay`; with `redisUrl`, a replica of that cluster. */
async function factory(t: After, redisUrl?: string): Promise<string> {
  const home = testdir({ 'plugins/pay.js': PAY }, t);
  const cluster = redisUrl && { MCP_REDIS_URL: redisUrl, MCP_CLUSTER_SECRET: TEST_CLUSTER_SECRET };
  const proc = await runServerBin(
    t,
    FACTORY_BIN,
    ['-p', 'pay', '-d', join(home, 'plugins'), '--http', '0'],
    /MCP endpoint:\s+(\S+)/,
    { env: { HOME: home, ...cluster } },
  );
  assert.ok(proc.match, proc.stderr());
  return proc.match[1] as string;
}

async function connect(t: After, url: string, manual: boolean): Promise<Client> {
  const client = new Client(
    { name: manual ? 'replayer' : 'honest', version: '1.0.0' },
    {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      inputRequired: manual ? { autoFulfill: false } : undefined,
    },
  );
  client.setRequestHandler('elicitation/create', async () => ({
    action: 'accept',
    content: { ok: true },
  }));
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  t.after(() => client.close());
  return client;
}

type CallParams = Parameters<Client['callTool']>[0];
const YES = { q0: { action: 'accept', content: { ok: true } } };

async function firstRound(client: Client): Promise<InputRequiredResult> {
  const round = (await client.callTool(
    { name: 'pay', arguments: {} },
    { allowInputRequired: true },
  )) as unknown as InputRequiredResult;
  assert.equal(round.resultType, 'input_required');
  assert.ok(round.requestState);
  return round;
}

/** The retry a client sends: the same call with its answers and the round's sealed state. */
async function answer(client: Client, requestState: string, inputResponses: object) {
  const params = { name: 'pay', arguments: {}, inputResponses, requestState };
  const result = (await client.callTool(params as CallParams)) as CallToolResult;
  return (result.content[0] as { text: string }).text;
}

test('a completed input_required round sent again is refused and pays nothing', async (t) => {
  const url = await factory(t);
  const replayer = await connect(t, url, true);
  const round = await firstRound(replayer);
  assert.equal(await answer(replayer, round.requestState!, YES), 'paid, payments so far: 1');

  for (let i = 0; i < 2; i++) {
    await assert.rejects(answer(replayer, round.requestState!, YES), {
      code: -32602,
      message: /requestState was already used: each input_required round takes one retry/,
    });
  }
  // A client that answers as it goes pays once per call: the replays paid nothing.
  const honest = await connect(t, url, false);
  const paid = (await honest.callTool({ name: 'pay', arguments: {} })) as CallToolResult;
  assert.deepEqual(paid.content, [{ type: 'text', text: 'paid, payments so far: 2' }]);
});

test('a retry refused for a malformed answer can be sent again with a proper one', async (t) => {
  const url = await factory(t);
  const client = await connect(t, url, true);
  const round = await firstRound(client);
  await assert.rejects(answer(client, round.requestState!, { q0: { roots: [] } }), {
    code: -32602,
    message: /not an elicitation result/,
  });
  assert.equal(await answer(client, round.requestState!, YES), 'paid, payments so far: 1');
  await assert.rejects(answer(client, round.requestState!, YES), { code: -32602 });
});

test('replicas: a round answered on one is refused on the other', async (t) => {
  const redis = await startRedisServer(t);
  const a = await factory(t, redis.url);
  const b = await factory(t, redis.url);
  const onA = await connect(t, a, true);
  const onB = await connect(t, b, true);
  const round = await firstRound(onA);
  assert.equal(await answer(onA, round.requestState!, YES), 'paid, payments so far: 1');
  await assert.rejects(answer(onB, round.requestState!, YES), {
    code: -32602,
    message: /requestState was already used/,
  });
  // B serves rounds of its own as usual.
  const own = await firstRound(onB);
  assert.equal(await answer(onB, own.requestState!, YES), 'paid, payments so far: 1');
});
