/**
 * `ApprovalBoard`: an in-process approval client over every kernel's gate — only while a host
 * has it open; the first answer wins, a second one or one after a timeout is refused with what
 * happened; closing it fails what it was deciding as `unavailable`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApprovalBoard } from './approvalBoard.ts';
import { ApprovalGate } from './approvalGate.ts';

const CALL = { server_name: 'github', tool_name: 'delete_repo', tool_args: { name: 'x' } };

async function pendingOn(board: ApprovalBoard, count: number) {
  while (board.pending().length < count) await new Promise((resolve) => setImmediate(resolve));
  return board.pending();
}

test('nobody has the board open: a call fails at once instead of waiting for nobody', async () => {
  const board = new ApprovalBoard();
  board.watch(new ApprovalGate(), 'k1');
  const gate = new ApprovalGate();
  board.watch(gate, 'k2');
  await assert.rejects(gate.check(CALL), { code: 'unavailable' });
});

test('approve, deny, a second answer, an answer after the timeout, and closing', async () => {
  const board = new ApprovalBoard();
  const gate = new ApprovalGate();
  const gateOpenedLater = new ApprovalGate({ timeoutMs: 50 });
  board.watch(gate, 'k1');
  const close = board.open();
  board.watch(gateOpenedLater, 'k2'); // a kernel opened while the board is open

  const approved = gate.check(CALL);
  const [first] = await pendingOn(board, 1);
  assert.deepEqual(
    {
      kernel: first.kernelId,
      server: first.serverName,
      tool: first.toolName,
      args: first.toolArgs,
    },
    { kernel: 'k1', server: 'github', tool: 'delete_repo', args: { name: 'x' } },
  );
  assert.equal(board.answer(first.id, true), 'approved github.delete_repo');
  await approved;
  await new Promise((resolve) => setImmediate(resolve));
  assert.throws(() => board.answer(first.id, false), /already ended \(accepted\)/);
  assert.throws(() => board.answer('no-such-id', true), /does not exist/);

  const denied = gate.check(CALL);
  const [second] = await pendingOn(board, 1);
  board.answer(second.id, false);
  await assert.rejects(denied, { code: 'rejected' });

  const late = gateOpenedLater.check(CALL);
  const [timingOut] = await pendingOn(board, 1);
  assert.equal(timingOut.kernelId, 'k2');
  await assert.rejects(late, { code: 'timeout' });
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(board.pending().length, 0);
  assert.throws(() => board.answer(timingOut.id, true), /already ended \(timeout\)/);

  const abandoned = gate.check(CALL);
  await pendingOn(board, 1);
  close();
  await assert.rejects(abandoned, { code: 'unavailable' });
});

test('a privileged call from code: refused unless allowed; allowed, the board is asked even under auto, and says it is privileged', async () => {
  const privileged = { ...CALL, privileged: true as const };
  await assert.rejects(new ApprovalGate({ policy: 'auto' }).check(privileged), (error: Error) => {
    assert.match(error.message, /refused: it is a privileged tool .*allow_privileged_tools: true/);
    return true;
  });
  const board = new ApprovalBoard();
  const gate = new ApprovalGate({ policy: 'auto', allowPrivileged: true });
  board.watch(gate, 'k1');
  const close = board.open();
  await gate.check(CALL); // an ordinary call: auto
  const asked = gate.check(privileged);
  const [pending] = await pendingOn(board, 1);
  assert.equal(pending.privileged, true);
  board.answer(pending.id, false);
  await assert.rejects(asked, { code: 'rejected' });
  close();
});
