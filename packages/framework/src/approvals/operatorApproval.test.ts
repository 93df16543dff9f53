// Approvals asked of an operator, over real HTTP with real SDK v2 clients of both eras: the call
// waits at `server.approvals` (what the console, REST and the approval WebSocket read), runs once
// an operator approves it, is refused when one refuses or none answers in time; a second or late
// answer is told so, and the waiting list shows the arguments without their secrets.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { firstText, waitFor } from '@mcpbox/test-utils';
import { approvalClient, startApprovalServer } from '../__fixtures__/approvalServer.ts';
import { ERAS } from '../protocol/era.ts';
import type { McpboxServer } from '../server.ts';
import { GRANT_META_KEY } from './grants.ts';
import type { PendingApproval } from './types.ts';

const rules = (ttl = 60) => [
  {
    name: 'operators-approve',
    tools: ['refund'],
    approve: 'args.amount > 100',
    approver: 'operator' as const,
    approval_ttl: ttl,
  },
];

/** The one call waiting at the desk, once it waits. */
async function waiting(server: McpboxServer): Promise<PendingApproval> {
  let pending: PendingApproval[] = [];
  await waitFor(async () => {
    pending = await server.approvals.pending();
    return pending.length > 0;
  }, 'a call waiting for an operator');
  assert.equal(pending.length, 1);
  return pending[0]!;
}

for (const era of ERAS) {
  test(`${era}: an operator approves a waiting call, it runs once; a second answer is told so`, async (t) => {
    const { server, url, ran, approvals } = await startApprovalServer(t, rules());
    let changes = 0;
    t.after(server.approvals.onChange(() => changes++));
    const client = await approvalClient(t, url, era, 'no elicitation');
    const call = client.callTool({
      name: 'refund',
      arguments: { amount: 500, password: 'hunter2-secret' },
    });
    const pending = await waiting(server);
    assert.equal(pending.subject.tool, 'refund');
    assert.equal(pending.subject.principal, 'anonymous');
    assert.equal(pending.rule, 'operators-approve');
    assert.equal(pending.via, 'call');
    assert.equal(pending.args.amount, 500);
    assert.notEqual(pending.args.password, 'hunter2-secret', 'secrets are not shown');
    assert.deepEqual(ran, [], 'nothing runs while it waits');

    const answer = await server.approvals.answer(pending.id, true, 'sub:olga');
    assert.ok(answer.ok);
    const result = await call;
    assert.equal(firstText(result), 'refunded 500');
    assert.equal(result._meta?.[GRANT_META_KEY], answer.grant.id);
    assert.deepEqual(await server.approvals.answer(pending.id, false, 'sub:oscar'), {
      ok: false,
      reason: 'answered',
    });
    assert.deepEqual(ran, ['refund 500']);
    assert.deepEqual(await server.approvals.pending(), []);
    await waitFor(() => changes >= 2, 'the desk to tell of the call coming and going');
    const records = await approvals();
    assert.deepEqual(
      records.map((r) => [r.decision, r.by, r.grant]),
      [
        ['asked', undefined, undefined],
        ['granted', 'sub:olga', answer.grant.id],
      ],
    );
  });
}

test('an operator refuses: the call is refused, naming who; nothing runs', async (t) => {
  const { server, url, ran, approvals } = await startApprovalServer(t, rules());
  const client = await approvalClient(t, url, 'legacy');
  const call = client.callTool({ name: 'refund', arguments: { amount: 500 } });
  const pending = await waiting(server);
  assert.deepEqual(await server.approvals.answer(pending.id, false, 'sub:oscar'), {
    ok: false,
    reason: 'refused',
  });
  const result = await call;
  assert.equal(result.isError, true);
  assert.match(firstText(result), /needs an approval.+and an operator \(sub:oscar\) refused it/);
  assert.deepEqual(ran, []);
  assert.deepEqual(
    (await approvals()).map((r) => [r.decision, r.by]),
    [
      ['asked', undefined],
      ['refused', 'sub:oscar'],
    ],
  );
});

test('no operator answers in time: the call is refused as expired; a late answer is told so', async (t) => {
  const { server, url, ran } = await startApprovalServer(t, rules(0.5));
  const client = await approvalClient(t, url, 'modern');
  const call = client.callTool({ name: 'refund', arguments: { amount: 500 } });
  const pending = await waiting(server);
  const result = await call;
  assert.equal(result.isError, true);
  assert.match(firstText(result), /no operator answered within 1 s/);
  assert.deepEqual(await server.approvals.answer(pending.id, true, 'sub:olga'), {
    ok: false,
    reason: 'expired',
  });
  assert.deepEqual(ran, []);
});
