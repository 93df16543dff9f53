import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ElicitResult } from '@modelcontextprotocol/server';
import { TimeoutBudget } from '../kernel/budget.ts';
import { ApprovalGate } from './approvalGate.ts';
import { attachCellApprover } from './cellApprover.ts';

const call = (tool: string) => ({ server_name: 's', tool_name: tool, tool_args: {} });

/** A budget that records how deep its pauses are. */
function pauseDepth() {
  const budget = {
    depth: 0,
    pause: () => {
      budget.depth += 1;
    },
    resume: () => {
      budget.depth -= 1;
    },
  };
  return budget;
}

test('each request is put to the user by elicitation; the answer decides it', async () => {
  const gate = new ApprovalGate();
  const asked: string[] = [];
  const detach = attachCellApprover(gate, pauseDepth(), async (params) => {
    asked.push(params.message);
    return { action: params.message.includes("'no'") ? 'decline' : 'accept', content: {} };
  });
  await gate.check(call('yes'));
  await assert.rejects(gate.check(call('no')), { code: 'rejected' });
  assert.equal(asked.length, 2);
  detach();
});

test('the clock stops once while requests wait and runs again when the last is decided', async () => {
  // Regression: the ApprovalQueue handler paused again on every change above zero (2 → 1
  // too), so after two requests waiting at once the clock stayed paused for the rest of the cell.
  const gate = new ApprovalGate();
  const budget = pauseDepth();
  const answers: ((result: ElicitResult) => void)[] = [];
  const detach = attachCellApprover(
    gate,
    budget,
    () => new Promise<ElicitResult>((resolve) => answers.push(resolve)),
  );
  const first = gate.check(call('a'));
  const second = gate.check(call('b'));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(answers.length, 2);
  assert.equal(budget.depth, 1);
  answers[0]({ action: 'accept', content: { approve: true } });
  await first;
  assert.equal(budget.depth, 1, 'one request still waits');
  answers[1]({ action: 'accept', content: { approve: true } });
  await second;
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(budget.depth, 0);
  detach();
});

test('a real budget keeps counting after the approvals: it expires', async () => {
  const gate = new ApprovalGate();
  const budget = new TimeoutBudget(50);
  const expired = new Promise<void>((resolve) => budget.start(resolve));
  const detach = attachCellApprover(gate, budget, async () => ({ action: 'accept', content: {} }));
  await Promise.all([gate.check(call('a')), gate.check(call('b'))]);
  await expired; // would never resolve with the clock left paused
  detach();
});

test('detaching fails requests still waiting as unavailable and resumes the clock', async () => {
  const gate = new ApprovalGate();
  const budget = pauseDepth();
  const detach = attachCellApprover(gate, budget, () => new Promise<ElicitResult>(() => {}));
  const waiting = gate.check(call('a'));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(budget.depth, 1);
  detach();
  await assert.rejects(waiting, { code: 'unavailable' });
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(budget.depth, 0);
});

test('without an MCP client to ask, a request is refused as unavailable', async () => {
  const gate = new ApprovalGate();
  const detach = attachCellApprover(gate, pauseDepth(), undefined);
  await assert.rejects(gate.check(call('a')), { code: 'unavailable' });
  detach();
});
