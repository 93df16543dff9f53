// Tools that keep running while they ask (`keepsRunning`): real SDK v2 clients of both eras over
// real HTTP. The handler runs once in both eras; a 2026 client answers `input_required` and its
// retry reaches the handler still waiting; abandoned, forged and cancelled retries fail clearly.
// A call that never asks is never listed for retries to find.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { firstText } from '@mcpbox/test-utils';
import {
  Client,
  type InputRequiredResult,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { z } from 'zod';
import type { RequestExtra } from '../contract/tool.ts';
import { ERAS, type Era, versionOfEra } from '../protocol/era.ts';
import { createServer } from '../server.ts';
import { DetachedCall, InputTimeoutError } from './detachedCall.ts';
import { DetachedCallTable } from './detachedCallTable.ts';
import { createRoundsCodec, principalOf } from './inputRounds.ts';
import { serveLiveCall } from './liveCalls.ts';

type After = { after: (fn: () => Promise<void>) => void };

/** What the handler saw, per call label. */
interface Seen {
  runs: number;
  error?: unknown;
  aborted?: boolean;
}
const seen = new Map<string, Seen>();

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * @param inputTimeoutMs how long a question waits for its answer: long by default, so a loaded
 *   machine never times out a question a test answers (300 ms did, twice); short only where the
 *   timeout is what is tested.
 */
async function startServer(t: After, inputTimeoutMs = 10_000): Promise<string> {
  const server = createServer({ name: 'live', transport: 'http', port: 0 });
  server.registerTool(
    'deploy',
    {
      inputSchema: { label: z.string(), hold: z.boolean().default(false) },
      keepsRunning: { inputTimeoutMs },
    },
    async ({ label, hold }, ctx) => {
      const mine: Seen = seen.get(label) ?? { runs: 0 };
      seen.set(label, mine);
      mine.runs += 1;
      assert.equal(ctx.inputMode, 'live');
      await ctx.reportProgress(1, undefined, 'before the question');
      let answer: Awaited<ReturnType<typeof ctx.elicit>>;
      try {
        answer = await ctx.elicit({
          mode: 'form',
          message: `Deploy ${label}?`,
          requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
        });
      } catch (error) {
        mine.error = error;
        return `no answer: ${error instanceof InputTimeoutError ? 'timeout' : String(error)}`;
      }
      await ctx.reportProgress(2, undefined, 'after the question');
      if (hold) {
        // Waits until the client cancels the request now waiting on the call.
        await new Promise<void>((resolve) => {
          ctx.mcpReq.signal.addEventListener('abort', () => resolve(), { once: true });
        });
        mine.aborted = true;
        return 'cancelled';
      }
      return `${label}: ${answer.action}`;
    },
  );
  const url = (await server.start()) as string;
  t.after(() => server.close());
  return url;
}

async function connect(
  url: string,
  era: Era,
  t: After,
  options: { answer?: 'accept' | 'decline'; manual?: boolean } = {},
): Promise<Client> {
  const client = new Client(
    { name: `client-${era}`, version: '1.0.0' },
    {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: versionOfEra(era) } },
      inputRequired: options.manual ? { autoFulfill: false } : undefined,
    },
  );
  client.setRequestHandler('elicitation/create', async () =>
    options.answer === 'decline'
      ? { action: 'decline' }
      : { action: 'accept', content: { ok: true } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  t.after(() => client.close());
  assert.equal(client.getProtocolEra(), era);
  return client;
}

/** The first round of a manual 2026 client: the `input_required` result. */
async function firstRound(client: Client, label: string, hold = false) {
  const result = (await client.callTool(
    { name: 'deploy', arguments: { label, hold } },
    { allowInputRequired: true },
  )) as unknown as InputRequiredResult;
  assert.equal(result.resultType, 'input_required');
  assert.ok(result.requestState);
  return result;
}

type CallParams = Parameters<Client['callTool']>[0];

/** A manual 2026 retry: the same call with answers and the sealed state (as a client sends it). */
function retry(
  client: Client,
  args: { label: string; hold: boolean },
  inputResponses: Record<string, unknown>,
  requestState: string | undefined,
  options?: Parameters<Client['callTool']>[1],
) {
  const params = { name: 'deploy', arguments: args, inputResponses, requestState };
  return client.callTool(params as CallParams, options);
}

for (const era of ERAS) {
  test(`${era}: the handler runs once, asks live, and its progress reaches the waiting request`, async (t) => {
    const url = await startServer(t);
    const client = await connect(url, era, t);
    const messages: string[] = [];
    const result = await client.callTool(
      { name: 'deploy', arguments: { label: `${era}-accept` } },
      // The 2026 client adds progress of its own ('Fulfilling input required …'): not ours.
      {
        onprogress: (p) =>
          void (/question/.test(String(p.message)) && messages.push(String(p.message))),
      },
    );
    assert.equal(firstText(result), `${era}-accept: accept`);
    assert.equal(seen.get(`${era}-accept`)?.runs, 1);
    // The second message was sent while the retry (2026) waited: it carried that request's token.
    await until(
      () => messages.length === 2,
      `both progress notifications (got ${JSON.stringify(messages)})`,
    );
    assert.deepEqual(messages, ['before the question', 'after the question']);

    const declined = await connect(url, era, t, { answer: 'decline' });
    const no = await declined.callTool({ name: 'deploy', arguments: { label: `${era}-decline` } });
    assert.equal(firstText(no), `${era}-decline: decline`);
    assert.equal(seen.get(`${era}-decline`)?.runs, 1);
  });
}

test('modern: an abandoned question fails in the handler after the timeout; a late answer is refused', async (t) => {
  const url = await startServer(t, 300);
  const client = await connect(url, 'modern', t, { manual: true });
  const round = await firstRound(client, 'abandoned');
  assert.deepEqual(Object.keys(round.inputRequests ?? {}), ['q0']);
  await until(() => seen.get('abandoned')?.error !== undefined, 'the question to time out');
  assert.ok(seen.get('abandoned')?.error instanceof InputTimeoutError);
  await assert.rejects(
    retry(
      client,
      { label: 'abandoned', hold: false },
      { q0: { action: 'accept', content: { ok: true } } },
      round.requestState,
    ),
    { code: -32602, message: /not answered in time.*call the tool again/s },
  );
});

test('modern: a requestState carried to other arguments, or edited, is refused', async (t) => {
  const url = await startServer(t);
  const client = await connect(url, 'modern', t, { manual: true });
  const round = await firstRound(client, 'forged');
  const answer = { q0: { action: 'accept', content: { ok: true } } };
  await assert.rejects(retry(client, { label: 'other', hold: false }, answer, round.requestState), {
    code: -32602,
    message: /does not belong to this request/,
  });
  await assert.rejects(
    retry(client, { label: 'forged', hold: false }, answer, `${round.requestState}x`),
    { code: -32602 },
  );
  // A malformed answer fails the retry and leaves the question waiting for a proper one.
  await assert.rejects(
    retry(client, { label: 'forged', hold: false }, { q0: { roots: [] } }, round.requestState),
    { code: -32602, message: /not an elicitation result/ },
  );
  const done = await retry(client, { label: 'forged', hold: false }, answer, round.requestState);
  assert.equal(firstText(done), 'forged: accept');
  assert.equal(seen.get('forged')?.runs, 1);
  // The call has ended: the same state again says so.
  await assert.rejects(
    retry(client, { label: 'forged', hold: false }, answer, round.requestState),
    { code: -32602, message: /already returned its result/ },
  );
});

test('modern: cancelling the retry that waits on the call aborts the handler', async (t) => {
  const url = await startServer(t);
  const client = await connect(url, 'modern', t, { manual: true });
  const round = await firstRound(client, 'cancelled', true);
  const controller = new AbortController();
  const waiting = retry(
    client,
    { label: 'cancelled', hold: true },
    { q0: { action: 'accept', content: { ok: true } } },
    round.requestState,
    {
      signal: controller.signal,
      onprogress: (p) => {
        if (p.message === 'after the question') controller.abort();
      },
    },
  );
  await assert.rejects(waiting);
  await until(() => seen.get('cancelled')?.aborted === true, 'the handler to see the abort');
});

test('a detached call belongs to its principal', () => {
  const table = new DetachedCallTable();
  const call = new DetachedCall({ principal: 'alice', call: 'c' });
  table.add(call);
  assert.equal(table.get(call.id, 'alice'), call);
  assert.equal(table.get(call.id, 'mallory'), undefined);
  table.remove(call, 'finished');
  assert.equal(table.ended(call.id, 'alice'), 'finished');
  assert.equal(table.ended(call.id, 'mallory'), undefined);
});

test('a live call that asks nothing is never put in the table (only a requestState names one)', async () => {
  const table = new DetachedCallTable();
  const extra = {
    mcpReq: {
      id: 1,
      method: 'tools/call',
      _meta: {},
      inputResponses: undefined,
      requestState: () => undefined,
      signal: new AbortController().signal,
    },
  } as unknown as RequestExtra;
  const principal = principalOf(extra);
  let id = '';
  const served = await serveLiveCall(
    extra,
    { method: 'tools/call', name: 'quick', args: {} },
    { codec: createRoundsCodec(), table },
    async (_ctx, detached) => {
      id = detached.id;
      assert.equal(table.get(id, principal), undefined, 'not in the table while it runs');
      return 'done';
    },
  );
  assert.deepEqual(served, { result: 'done' });
  assert.equal(table.ended(id, principal), undefined, 'no note of its end: nothing names it');
});
