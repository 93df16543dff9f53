// Grant tokens presented in a call's `_meta["io.mcpbox/grant"]`, over real HTTP with real SDK v2
// clients of both eras: a grant for exactly the call runs it once; replayed, moved to other
// arguments, another tool or another principal, tampered with or expired, it is refused with a
// message saying why, and nothing runs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { firstText, waitFor } from '@mcpbox/test-utils';
import { approvalClient, startApprovalServer } from '../__fixtures__/approvalServer.ts';
import { argsDigest } from '../audit/record.ts';
import { ANONYMOUS_PRINCIPAL } from '../auth/principal.ts';
import { ERAS } from '../protocol/era.ts';
import type { McpboxServer } from '../server.ts';
import { GRANT_META_KEY } from './grants.ts';
import type { ApprovalSubject } from './types.ts';

const RULES = [
  {
    name: 'operators-approve',
    tools: ['refund', 'wipe'],
    approve: 'args.amount > 100',
    approver: 'operator' as const,
  },
];

/** The subject of an anonymous caller's call of `tool` with `args`, as the server decides it. */
function subjectOf(server: McpboxServer, tool: string, args: Record<string, unknown>) {
  const entry = server.catalog.getTool(tool);
  assert.ok(entry);
  const admission = server.access.admit(ANONYMOUS_PRINCIPAL, undefined, entry, args);
  assert.ok(admission.admitted && admission.approval, 'the rule asks for approval');
  return {
    principal: ANONYMOUS_PRINCIPAL.id,
    server: entry.plugin,
    tool,
    argsDigest: argsDigest(args),
    policyVersion: admission.approval.policyVersion,
  } satisfies ApprovalSubject;
}

for (const era of ERAS) {
  test(`${era}: a grant runs its own call once; replayed, moved, tampered or expired it is refused`, async (t) => {
    const { server, url, ran, approvals } = await startApprovalServer(t, RULES);
    const client = await approvalClient(t, url, era);
    const args = { amount: 500 };
    const subject = subjectOf(server, 'refund', args);
    const { grant, token } = await server.grants.issue(subject, 'sub:olga', 60_000);
    const call = (name: string, callArgs: Record<string, unknown>, presented: string) =>
      client.callTool({ name, arguments: callArgs, _meta: { [GRANT_META_KEY]: presented } });

    const first = await call('refund', args, token);
    assert.equal(firstText(first), 'refunded 500');
    assert.equal(first._meta?.[GRANT_META_KEY], grant.id);
    const refused = async (what: string, result: Promise<unknown>, message: RegExp) => {
      const answer = (await result) as { isError?: boolean };
      assert.equal(answer.isError, true, what);
      assert.match(firstText(answer), message, what);
    };
    await refused('replayed', call('refund', args, token), /used already/);

    const fresh = await server.grants.issue(subject, 'sub:olga', 60_000);
    await refused(
      'other arguments',
      call('refund', { amount: 900 }, fresh.token),
      /other arguments/,
    );
    await refused('another tool', call('wipe', args, fresh.token), /another tool/);
    const [id, mac] = fresh.token.split('.') as [string, string];
    const tampered = `${id}.${mac[0] === 'A' ? 'B' : 'A'}${mac.slice(1)}`;
    await refused('tampered', call('refund', args, tampered), /MAC does not verify/);
    await refused('not a token', call('refund', args, 'let me in'), /not a grant token/);
    const bobs = await server.grants.issue(
      { ...subject, principal: 'sub:bob' },
      'sub:olga',
      60_000,
    );
    await refused('another principal', call('refund', args, bobs.token), /another principal/);
    const brief = await server.grants.issue(subject, 'sub:olga', 1);
    await waitFor(() => Date.now() > brief.grant.expiresAt, 'the grant to expire');
    await refused('expired', call('refund', args, brief.token), /expired/);
    assert.deepEqual(ran, ['refund 500'], 'only the granted call ran');

    // The genuine grant moved nowhere is still good, once.
    assert.equal(firstText(await call('refund', args, fresh.token)), 'refunded 500');
    const decisions = (await approvals()).map((r) => `${r.decision} ${r.by ?? ''}`.trim());
    assert.deepEqual(decisions, [
      'granted sub:olga',
      'refused grant:used',
      'refused grant:mismatch',
      'refused grant:mismatch',
      'refused grant:forged',
      'refused grant:unknown',
      'refused grant:mismatch',
      'refused grant:expired',
      'granted sub:olga',
    ]);
  });
}

test('a policy change voids the grants given under the old one', async (t) => {
  const { server, url, ran } = await startApprovalServer(t, RULES);
  const client = await approvalClient(t, url, 'modern');
  const args = { amount: 500 };
  const { token } = await server.grants.issue(
    subjectOf(server, 'refund', args),
    'sub:olga',
    60_000,
  );
  server.access.update({
    views: {},
    policy: { default: 'allow', rules: [{ ...RULES[0]!, approval_ttl: 30 }] },
  });
  const result = await client.callTool({
    name: 'refund',
    arguments: args,
    _meta: { [GRANT_META_KEY]: token },
  });
  assert.equal(result.isError, true);
  assert.match(firstText(result), /another policy/);
  assert.deepEqual(ran, []);
});
