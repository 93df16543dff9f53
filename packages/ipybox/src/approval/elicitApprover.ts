/**
 * `--approval elicit`: each tool call from kernel code is put to the user through MCP
 * elicitation (`elicitation/create`) on the client whose cell made the call.
 *
 * Accept (with `approve` left true) runs the call; decline, cancel or `approve: false` rejects it
 * (`ToolRejected` in the cell). A 2025 client gets a real `elicitation/create` request; a 2026
 * client gets the question as `input_required` while the cell waits, and its retry brings the
 * answer (`keepsRunning` in the framework); one that never comes back times out
 * (`ApprovalTimeout`). A client that cannot elicit — it declared no `elicitation`
 * capability, or answers with an error — gets a denial that says why
 * (`ApprovalUnavailable` in the cell), never a silent approval.
 *
 * @module
 */
import { errorMessage, InputTimeoutError } from '@mcpbox/framework';
import type { ElicitRequestParams, ElicitResult } from '@modelcontextprotocol/server';
import type { ApprovalRequest } from './approvalRequest.ts';

/**
 * Sends one elicitation to the client of the running cell; `undefined` when no cell runs. The
 * signal withdraws the question once the request was settled otherwise (the approval timeout).
 */
export type Elicit =
  | ((params: ElicitRequestParams, signal: AbortSignal) => Promise<ElicitResult>)
  | undefined;

/** The question shown to the user. The arguments are JSON, so nothing in them is markup. */
export function approvalQuestion(request: ApprovalRequest): ElicitRequestParams {
  const privileged = request.privileged
    ? 'PRIVILEGED tool (it runs programs on this machine, outside any sandbox) '
    : 'tool ';
  return {
    message:
      `Code running in the ipybox kernel wants to call the ${privileged}'${request.toolName}' of the MCP server ` +
      `'${request.serverName}' with these arguments:\n${JSON.stringify(request.toolArgs, null, 2)}\n\nAllow this call?`,
    requestedSchema: {
      type: 'object',
      properties: {
        approve: {
          type: 'boolean',
          title: 'Approve',
          description: `Run ${request.serverName}.${request.toolName}`,
          default: true,
        },
      },
      required: ['approve'],
    },
  };
}

/** Decides `request` by asking the user; settles it in every case. */
export async function decideByElicitation(request: ApprovalRequest, elicit: Elicit): Promise<void> {
  if (elicit === undefined) {
    request.settle('unavailable', 'no MCP client is waiting on a cell to approve the call');
    return;
  }
  // Settled by someone else (the approval timeout, the cell interrupted): the question goes, so
  // a 2026 client's late answer is refused rather than taken for a decision nobody waits for.
  const settledElsewhere = new AbortController();
  void request.settled.then(() => settledElsewhere.abort(new Error('the approval was settled')));
  let answer: ElicitResult;
  try {
    answer = await elicit(approvalQuestion(request), settledElsewhere.signal);
  } catch (error) {
    // A 2026 client that never came back with the decision: the same as no decision in time.
    if (error instanceof InputTimeoutError) request.settle('timeout', timeoutReason(error));
    else request.settle('unavailable', elicitationFailure(error, request));
    return;
  }
  if (answer.action === 'accept' && answer.content?.approve !== false) request.accept();
  else request.reject();
}

function timeoutReason(error: InputTimeoutError): string {
  return `within ${error.seconds} s (the MCP client did not come back with the decision)`;
}

function elicitationFailure(error: unknown, request: ApprovalRequest): string {
  const message = errorMessage(error);
  if (/does not support|method not found/i.test(message)) {
    return request.privileged
      ? 'a privileged tool needs an approval, and the MCP client does not support elicitation, ' +
          'so the call cannot be approved (use a client with elicitation, or approval clients: ' +
          '--approval channel)'
      : 'approval is set to elicit, but the MCP client does not support elicitation, so the call ' +
          'cannot be approved (use a client with elicitation, or start ipybox with --approval auto)';
  }
  return `asking the MCP client for approval failed: ${message}`;
}
