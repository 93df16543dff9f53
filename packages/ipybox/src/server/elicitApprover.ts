/**
 * `--approval elicit`: each tool call from kernel code is put to the user through MCP
 * elicitation (`elicitation/create`) on the client whose cell made the call.
 *
 * Accept (with `approve` left true) runs the call; decline, cancel or `approve: false` rejects it
 * (`ToolRejected` in the cell). A client that cannot elicit — it declared no `elicitation`
 * capability, or answers with an error — gets a denial that says why
 * (`ApprovalUnavailable` in the cell), never a silent approval.
 *
 * @module
 */
import { errorMessage } from '@mcpbox/framework';
import type { ElicitRequestParams, ElicitResult } from '@modelcontextprotocol/server';
import type { ApprovalRequest } from '../approval/approvalRequest.ts';

/** Sends one elicitation to the client of the running cell; `undefined` when no cell runs. */
export type Elicit = ((params: ElicitRequestParams) => Promise<ElicitResult>) | undefined;

/** The question shown to the user. The arguments are JSON, so nothing in them is markup. */
export function approvalQuestion(request: ApprovalRequest): ElicitRequestParams {
  return {
    message:
      `Code running in the ipybox kernel wants to call the tool '${request.toolName}' of the MCP server ` +
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
  let answer: ElicitResult;
  try {
    answer = await elicit(approvalQuestion(request));
  } catch (error) {
    request.settle('unavailable', elicitationFailure(error));
    return;
  }
  if (answer.action === 'accept' && answer.content?.approve !== false) request.accept();
  else request.reject();
}

function elicitationFailure(error: unknown): string {
  const message = errorMessage(error);
  if (/does not support|method not found/i.test(message)) {
    return (
      'approval is set to elicit, but the MCP client does not support elicitation, so the call ' +
      'cannot be approved (use a client with elicitation, or start ipybox with --approval auto)'
    );
  }
  return `asking the MCP client for approval failed: ${message}`;
}
