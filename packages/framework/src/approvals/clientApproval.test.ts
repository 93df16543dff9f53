// Approvals asked of the client, over real HTTP with real SDK v2 clients of both eras (2025:
// an elicitation request; 2026: `input_required` and a retry): an accepted call runs once, a
// declined one not at all, a client that cannot be asked is told how to get an approval, and a
// 2026 answer carried to a call with other arguments approves nothing. Every step is audited.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { firstText, rawModern } from '@mcpbox/test-utils';
import { approvalClient, startApprovalServer } from '../__fixtures__/approvalServer.ts';
import { ERAS } from '../protocol/era.ts';
import { GRANT_META_KEY } from './grants.ts';

const BIG_REFUNDS = [
  { name: 'big-refunds', tools: ['refund'], approve: 'args.amount > 100', approval_ttl: 60 },
];

for (const era of ERAS) {
  test(`${era}: the user approves a call, it runs once; declined, nothing runs`, async (t) => {
    const { url, ran, approvals } = await startApprovalServer(t, BIG_REFUNDS);
    const asked: string[] = [];
    const client = await approvalClient(t, url, era, 'accept', asked);

    const small = await client.callTool({ name: 'refund', arguments: { amount: 5 } });
    assert.equal(firstText(small), 'refunded 5');
    assert.equal(asked.length, 0, 'no rule asks for small refunds');

    const big = await client.callTool({
      name: 'refund',
      arguments: { amount: 500, password: 'hunter2-secret' },
    });
    assert.equal(firstText(big), 'refunded 500');
    assert.deepEqual(ran, ['refund 5', 'refund 500']);
    assert.equal(asked.length, 1);
    assert.match(asked[0]!, /Approve this call of refund \(policy rule "big-refunds"\)/);
    assert.match(asked[0]!, /"amount":500/);
    assert.doesNotMatch(asked[0]!, /hunter2/, 'secrets are not shown');
    const grant = big._meta?.[GRANT_META_KEY];
    assert.equal(typeof grant, 'string', 'the result names its grant');

    const records = await approvals();
    assert.deepEqual(
      records.map((r) => [r.decision, r.by, r.rule]),
      [
        ['asked', undefined, 'big-refunds'],
        ['granted', 'client:anonymous', 'big-refunds'],
      ],
    );
    assert.equal(records[1]?.grant, grant);
    assert.match(records[1]?.args_sha256 ?? '', /^[0-9a-f]{64}$/);

    const declining = await approvalClient(t, url, era, 'decline');
    const declined = await declining.callTool({ name: 'refund', arguments: { amount: 700 } });
    assert.equal(declined.isError, true);
    assert.match(firstText(declined), /needs an approval.+and the user declined \(decline\)/);
    assert.deepEqual(ran, ['refund 5', 'refund 500'], 'nothing ran');
    assert.equal((await approvals()).at(-1)?.decision, 'refused');
  });

  test(`${era}: a client that cannot be asked is told how to get an approval`, async (t) => {
    const { url, ran } = await startApprovalServer(t, BIG_REFUNDS);
    const client = await approvalClient(t, url, era, 'no elicitation');
    const result = await client.callTool({ name: 'refund', arguments: { amount: 500 } });
    assert.equal(result.isError, true);
    assert.match(
      firstText(result),
      /needs an approval of this call .+this client cannot be asked .+present a grant in _meta\["io\.mcpbox\/grant"\].+approver: operator/,
    );
    assert.deepEqual(ran, []);
  });
}

const CAPABILITIES = { capabilities: { elicitation: { form: {} } } };

test('2026: an approval answered for one call approves no call with other arguments', async (t) => {
  const { url, ran } = await startApprovalServer(t, BIG_REFUNDS);
  const call = (params: Record<string, unknown>) =>
    rawModern(url, 'tools/call', { name: 'refund', ...params }, CAPABILITIES);

  const first = await call({ arguments: { amount: 500 } });
  assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
  const requests = first.result?.inputRequests as Record<string, unknown>;
  const [key] = Object.keys(requests);
  assert.ok(key);
  const accept = { [key]: { action: 'accept', content: {} } };

  // The sealed state and the answer, carried to a call of 5000.
  const moved = await call({
    arguments: { amount: 5000 },
    inputResponses: accept,
    requestState: first.result?.requestState,
  });
  assert.match(JSON.stringify(moved), /does not belong to this/);
  // The answer alone, with no state: it answers a question of that call only, so 5000 is asked.
  const bare = await call({ arguments: { amount: 5000 }, inputResponses: accept });
  assert.equal(bare.result?.resultType, 'input_required', JSON.stringify(bare));
  assert.deepEqual(ran, [], 'nothing ran');

  // The genuine retry runs the call it was asked for, once; the same retry again is refused.
  const retry = { arguments: { amount: 500 }, inputResponses: accept };
  const approved = await call({ ...retry, requestState: first.result?.requestState });
  assert.deepEqual(approved.result?.content, [{ type: 'text', text: 'refunded 500' }]);
  const replayed = await call({ ...retry, requestState: first.result?.requestState });
  assert.match(JSON.stringify(replayed), /already used/);
  assert.deepEqual(ran, ['refund 500']);
});
