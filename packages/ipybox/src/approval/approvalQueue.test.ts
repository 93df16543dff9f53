import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApprovalGate } from './approvalGate.ts';
import { ApprovalQueue } from './approvalQueue.ts';

const call = (tool: string) => ({ server_name: 's', tool_name: tool, tool_args: {} });

test('requests come out in order; the consumer decides each; pending counts drive pause/resume', async () => {
  const gate = new ApprovalGate();
  const queue = new ApprovalQueue(gate);
  const counts: number[] = [];
  queue.onPendingChange((n) => counts.push(n));

  const first = gate.check(call('a'));
  const second = gate.check(call('b'));
  const a = await queue.next();
  const b = await queue.next();
  assert.equal(a.value?.toolName, 'a');
  assert.equal(b.value?.toolName, 'b');
  a.value!.accept();
  b.value!.reject();
  await first;
  await assert.rejects(second, { code: 'rejected' });
  assert.deepEqual(counts, [1, 2, 1, 0]);
  queue.close();
});

test('a consumer waiting in next() gets the request as soon as it arrives', async () => {
  const gate = new ApprovalGate();
  const queue = new ApprovalQueue(gate);
  const next = queue.next();
  const check = gate.check(call('later'));
  const { value } = await next;
  value!.accept();
  await check;
  queue.close();
});

test('closing ends iteration and fails undecided requests as unavailable', async () => {
  const gate = new ApprovalGate();
  const queue = new ApprovalQueue(gate);
  const check = gate.check(call('x'));
  const seen: string[] = [];
  for await (const request of queue) {
    seen.push(request.toolName);
    queue.close();
  }
  assert.deepEqual(seen, ['x']);
  await assert.rejects(check, { code: 'unavailable' });
  assert.equal(gate.approverCount, 0);
  assert.deepEqual(await queue.next(), { value: undefined, done: true });
});

test('a request that times out while queued is dropped from the queue', async () => {
  const gate = new ApprovalGate({ timeoutMs: 20 });
  const queue = new ApprovalQueue(gate);
  await assert.rejects(gate.check(call('slow')), { code: 'timeout' });
  assert.equal(queue.pending, 0);
  queue.close();
  assert.deepEqual(await queue.next(), { value: undefined, done: true });
});
