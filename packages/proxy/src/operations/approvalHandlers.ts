/**
 * The approval operations over the server's {@link ApprovalDesk} (`server.approvals`): list the
 * calls waiting for an operator, approve one (the desk issues a single-use grant for exactly
 * that call) or deny it. Every front door — REST, CLI, the `proxy__*` tools, the console —
 * answers through these, so an approval means the same whoever gives it.
 *
 * Who answers is the door's operator (`Caller.operator`: the management token's holder, the
 * console's session) or, at the tool door, the calling principal — which may not answer for a
 * call of its own: a model must not approve what it asked to run.
 *
 * @module
 */
import type { ApprovalAnswer, ApprovalDesk } from '@mcpbox/framework';
import type { AnsweredBody, ApprovalsBody } from './approvalsText.ts';
import { answeredText, approvalsText } from './approvalsText.ts';
import type { Caller, Handler, RestAnswer } from './handlers.ts';
import type { OperationArgs } from './table.ts';
import { error, text } from './toolText.ts';

type Failed = { ok: false; error: string; status: number };

const NO_DESK: Failed = {
  ok: false,
  status: 400,
  error: 'approvals are not available here (no server behind this manager)',
};

const restOf = (result: { ok: true } | Failed): RestAnswer =>
  result.ok
    ? { status: 200, body: result }
    : { status: result.status, body: { ok: false, error: result.error } };

/** Why an answer changed nothing, said for the operator. */
function notAnswered(id: string, reason: Exclude<ApprovalAnswer, { ok: true }>['reason']): Failed {
  switch (reason) {
    case 'unknown':
      return {
        ok: false,
        status: 404,
        error: `no call waits for approval under id ${id} (mcp-proxy approvals list shows those that do)`,
      };
    case 'answered':
      return {
        ok: false,
        status: 409,
        error: `approval ${id} was already answered: nothing changed`,
      };
    case 'expired':
      return {
        ok: false,
        status: 409,
        error: `approval ${id} expired: the call was refused and nothing ran; it has to be made again`,
      };
    case 'refused':
      return { ok: false, status: 409, error: `approval ${id} was refused: nothing runs` };
  }
}

async function answer(
  { manager, operator, principal }: Caller,
  id: string,
  approve: boolean,
  now: () => number,
): Promise<AnsweredBody | Failed> {
  const desk: ApprovalDesk | undefined = manager.approvals;
  if (desk === undefined) return NO_DESK;
  const waiting = (await desk.pending()).find((p) => p.id === id);
  if (waiting && principal !== undefined && waiting.subject.principal === principal) {
    return {
      ok: false,
      status: 403,
      error: `approval ${id} is for a call of your own (${principal}): an operator answers it, in the console or with mcp-proxy approvals`,
    };
  }
  const by = operator ?? principal ?? 'operator';
  const answered = await desk.answer(id, approve, by);
  // A denial that took effect is answered as refused: the call will not run.
  const denied = !approve && !answered.ok && answered.reason === 'refused';
  if (!answered.ok && !denied) return notAnswered(id, answered.reason);
  const subject = answered.ok ? answered.grant.subject : waiting?.subject;
  return {
    ok: true,
    id,
    approved: answered.ok,
    call: subject ? `${subject.server}.${subject.tool}` : id,
    principal: subject?.principal ?? 'its caller',
    ...(answered.ok && {
      grant: { id: answered.grant.id, expiresAt: answered.grant.expiresAt },
    }),
    now: now(),
  };
}

function answerHandler(approve: boolean): Handler<OperationArgs, AnsweredBody | Failed> {
  return {
    run: (caller, { id }) => answer(caller, String(id), approve, Date.now),
    rest: restOf,
    tool: (result) => (result.ok ? text(answeredText(result)) : error(result.error)),
  };
}

export const APPROVAL_HANDLERS = {
  approvals: {
    run: async ({ manager }) =>
      manager.approvals
        ? { ok: true as const, pending: await manager.approvals.pending(), now: Date.now() }
        : NO_DESK,
    rest: restOf,
    tool: (result) => (result.ok ? text(approvalsText(result)) : error(result.error)),
  } satisfies Handler<OperationArgs, ApprovalsBody | Failed>,
  approve: answerHandler(true),
  deny: answerHandler(false),
};
