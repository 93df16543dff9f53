/**
 * The management operations about calls waiting for an operator's approval (issue 32), entries
 * of the operations table (`table.ts`) kept beside it: `approvals` (list), `approve` and `deny` —
 * the CLI's `mcp-proxy approvals list|approve|deny`, `/proxy/approvals*` in the REST API, the
 * `proxy__approvals|approve|deny` tools. All privileged: kernel code may not answer for the calls
 * it made.
 *
 * Like the table, this file is loaded by the CLI and imports no framework code.
 *
 * @module
 */
import { z } from 'zod';
import {
  type AnsweredBody,
  type ApprovalsBody,
  answeredText,
  approvalsText,
} from './approvalsText.ts';
import type { CliGroup, OperationSpec } from './table.ts';

/** `mcp-proxy approvals list|approve|deny`. */
const APPROVALS_GROUP: CliGroup = {
  name: 'approvals',
  description: 'calls waiting for an operator: list, approve or deny them',
};

/**
 * approve and deny: one waiting call by id. Privileged, so kernel code cannot answer for the
 * calls it made; the tool's caller answers as itself, never for its own calls (`handlers.ts`).
 */
function answerOperation<N extends 'approve' | 'deny'>(
  name: N,
  summary: string,
): Omit<OperationSpec, 'console'> & { name: N } {
  return {
    name,
    summary,
    args: {
      id: z.string().min(1).describe('Id of the waiting call (proxy__approvals lists them)'),
    },
    privileged: true,
    recorded: { id: 'target' },
    tool: `proxy__${name}`,
    rest: [{ method: 'POST', path: `/proxy/approvals/${name}`, param: 'id' }],
    cli: {
      group: APPROVALS_GROUP,
      command: `${name} <id>`,
      description: `${name} a call waiting for approval (its id from mcp-proxy approvals list)`,
      args: ([id]) => ({ id }),
      text: (body) => answeredText(body as AnsweredBody),
    },
  };
}

export const APPROVAL_OPERATIONS = [
  {
    name: 'approvals',
    summary:
      "Calls waiting for an operator's approval: who, which tool, the arguments, the rule and the time left.",
    privileged: true,
    tool: 'proxy__approvals',
    rest: [{ method: 'GET', path: '/proxy/approvals' }],
    cli: {
      group: APPROVALS_GROUP,
      command: 'list',
      description: "calls waiting for an operator's approval",
      args: () => ({}),
      text: (body) => approvalsText(body as ApprovalsBody),
    },
  },
  answerOperation(
    'approve',
    'Approve a waiting call: a single-use grant for exactly that principal, tool and arguments.',
  ),
  answerOperation('deny', 'Deny a waiting call: it is refused and nothing runs.'),
] as const satisfies readonly OperationSpec[];
