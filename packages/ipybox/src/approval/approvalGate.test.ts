import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApprovalGate } from './approvalGate.ts';
import type { ApprovalRequest } from './approvalRequest.ts';

const CALL = { server_name: 'github', tool_name: 'delete_repo', tool_args: { name: 'x' } };

describe('ApprovalGate', () => {
  test('auto approves without asking anyone; deny refuses', async () => {
    await new ApprovalGate({ policy: 'auto' }).check(CALL);
    await assert.rejects(new ApprovalGate({ policy: 'deny' }).check(CALL), {
      code: 'rejected',
      message: 'call to github.delete_repo rejected: tool calls are denied by policy',
    });
  });

  test('ask with no approver attached fails at once as unavailable', async () => {
    await assert.rejects(new ApprovalGate().check(CALL), {
      code: 'unavailable',
      message: 'cannot run github.delete_repo: no approval client connected',
    });
  });

  test('an approver decides by returning a boolean', async () => {
    const gate = new ApprovalGate();
    const detach = gate.attach((request) => request.toolArgs.name === 'x');
    await gate.check(CALL);
    await assert.rejects(gate.check({ ...CALL, tool_args: { name: 'y' } }), { code: 'rejected' });
    detach();
    assert.equal(gate.approverCount, 0);
  });

  test('an approver may decide later through accept(); listeners see the request settle', async () => {
    const gate = new ApprovalGate();
    const held: ApprovalRequest[] = [];
    gate.attach((request) => {
      held.push(request);
      return undefined;
    });
    const observed: string[] = [];
    gate.onRequest((request) => {
      observed.push(`pending ${request}`);
      void request.settled.then((outcome) => observed.push(outcome));
    });
    const check = gate.check(CALL);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(held.length, 1);
    assert.equal(held[0]!.pending, true);
    assert.equal(held[0]!.accept(), true);
    assert.equal(held[0]!.reject(), false, 'the first decision wins');
    await check;
    assert.deepEqual(observed, ['pending github.delete_repo(name="x")', 'accepted']);
  });

  test('the most recently attached approver decides; detaching hands back to the previous', async () => {
    const gate = new ApprovalGate();
    gate.attach(() => true);
    const detach = gate.attach(() => false);
    await assert.rejects(gate.check(CALL), { code: 'rejected' });
    detach();
    await gate.check(CALL);
  });

  test('no decision within timeoutMs fails as timeout, not as rejected', async () => {
    const gate = new ApprovalGate({ timeoutMs: 50 });
    gate.attach(() => undefined);
    await assert.rejects(gate.check(CALL), {
      code: 'timeout',
      message: 'no approval decision for github.delete_repo within 0.05 s',
    });
  });

  test('the caller going away cancels the wait', async () => {
    const gate = new ApprovalGate();
    gate.attach(() => undefined);
    const controller = new AbortController();
    const check = gate.check(CALL, { signal: controller.signal });
    controller.abort();
    await assert.rejects(check, { code: 'cancelled' });
  });

  test('detaching an approver fails the requests it was deciding as unavailable', async () => {
    const gate = new ApprovalGate();
    const detach = gate.attach(() => undefined);
    const check = gate.check(CALL);
    await new Promise((resolve) => setImmediate(resolve));
    detach();
    await assert.rejects(check, {
      code: 'unavailable',
      message: 'cannot run github.delete_repo: the approval client disconnected',
    });
  });

  test('an approver that throws makes the call fail as unavailable with its message', async () => {
    const gate = new ApprovalGate({ logger: silent });
    gate.attach(() => {
      throw new Error('elicitation not supported by the client');
    });
    await assert.rejects(gate.check(CALL), {
      code: 'unavailable',
      message: /the approver failed: elicitation not supported by the client/,
    });
  });
});

const silent = { debug() {}, info() {}, warn() {}, error() {} };
