/**
 * One tool call from kernel code, independent of HTTP: validate → approve → call upstream → reply.
 *
 * The reply is data, never an exception: `{result}` or `{error, type}`, where `type` names the
 * Python exception the generated runtime raises (see `python/_runtime.py`).
 *
 * @module
 */
import { errorMessage } from '@mcpbox/framework';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { ApprovalDeniedError, type ApprovalGate } from '../approval/approvalGate.ts';
import type { ToolCall } from '../approval/approvalRequest.ts';
import type { ToolConnection, ToolConnections } from './connections.ts';
import { isPrivilegedCall } from './privilege.ts';
import { NoAnswerError, type UpstreamQuestions } from './upstreamQuestions.ts';

/** The error types of a reply; each maps to one Python exception class. */
export type ToolCallErrorType =
  | 'not_found'
  | 'tool_error'
  | 'timeout'
  | 'rejected'
  | 'approval_timeout'
  | 'approval_unavailable'
  | 'input_unavailable'
  | 'bad_request';

/** `grant`: the token of the grant that approved the call, when one did (`kernelGrants.ts`). */
export type ToolCallReply =
  | { result: unknown; grant?: string }
  | { error: string; type: ToolCallErrorType };

/**
 * Thrown by a connection to answer with this type and message as they are, e.g. code mode's
 * "the tool left the catalog" (not_found) or "no cell of this kernel is running" (rejected).
 */
export class ToolCallRefused extends Error {
  readonly type: ToolCallErrorType;

  constructor(type: ToolCallErrorType, message: string) {
    super(message);
    this.name = 'ToolCallRefused';
    this.type = type;
  }
}

export type { ToolConnection, ToolConnections };

export interface RunToolCallDeps {
  connections: ToolConnections;
  approval: ApprovalGate;
  /** Per-call timeout (ms) when the caller gives none. */
  defaultTimeoutMs: number;
  /** Where the upstream's questions during the call go (the running cell's client). */
  questions?: UpstreamQuestions;
}

/** Validates the JSON body of `POST /run`; returns the call or a `bad_request` reply. */
export function parseToolCall(
  body: unknown,
): { call: ToolCall; timeoutMs?: number; grant?: string } | { error: string; type: 'bad_request' } {
  const bad = (error: string) => ({ error, type: 'bad_request' as const });
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return bad('expected a JSON object {server_name, tool_name, tool_args}');
  }
  const {
    server_name,
    tool_name,
    tool_args = {},
    timeout,
    grant,
  } = body as Record<string, unknown>;
  if (typeof server_name !== 'string' || server_name === '') {
    return bad('server_name: expected a non-empty string');
  }
  if (typeof tool_name !== 'string' || tool_name === '') {
    return bad('tool_name: expected a non-empty string');
  }
  if (typeof tool_args !== 'object' || tool_args === null || Array.isArray(tool_args)) {
    return bad('tool_args: expected an object');
  }
  if (timeout !== undefined && (typeof timeout !== 'number' || !(timeout > 0))) {
    return bad('timeout: expected a positive number of seconds');
  }
  if (grant !== undefined && (typeof grant !== 'string' || grant === '')) {
    return bad('grant: expected the token of an approval grant (a string)');
  }
  return {
    call: { server_name, tool_name, tool_args: tool_args as Record<string, unknown> },
    ...(grant !== undefined && { grant }),
    timeoutMs: timeout === undefined ? undefined : Math.ceil((timeout as number) * 1000),
  };
}

/**
 * Runs `call`. Whether the tool is privileged is read first (`privilege.ts`: that may start the
 * upstream); nothing is called before the call is approved. The timeout starts after approval
 * (waiting for a human does not eat the tool's time). `signal` aborts the wait and the upstream
 * request (it receives `notifications/cancelled`) when the caller goes away.
 */
export async function runToolCall(
  deps: RunToolCallDeps,
  call: ToolCall,
  {
    timeoutMs,
    signal,
    grant,
    shape = resultValue,
  }: {
    timeoutMs?: number;
    signal?: AbortSignal;
    grant?: string;
    /** What the code receives of a result: Python's `resultValue` unless the runtime differs. */
    shape?: (result: CallToolResult) => unknown;
  } = {},
): Promise<ToolCallReply> {
  const { connections } = deps;
  const what = `${call.server_name}.${call.tool_name}`;
  if (!connections.has(call.server_name)) {
    const known = connections.names();
    return {
      type: 'not_found',
      error: `unknown MCP server '${call.server_name}' (registered: ${
        known.length > 0 ? known.map((n) => `'${n}'`).join(', ') : 'none'
      }); register it with the register_mcp_server tool`,
    };
  }

  const approval = await approve(deps, call, signal, grant);
  if ('error' in approval) return approval;

  let connection: ToolConnection;
  try {
    connection = connections.get(call.server_name);
  } catch (error) {
    // Removed while the call waited for approval.
    return { type: 'not_found', error: errorMessage(error) };
  }
  const timeout = timeoutMs ?? deps.defaultTimeoutMs;
  let result: CallToolResult;
  try {
    result = await connection.callTool(call.tool_name, call.tool_args, {
      signal,
      timeout,
      ...deps.questions?.askersFor(call),
    });
  } catch (error) {
    if (error instanceof ToolCallRefused) return { type: error.type, error: error.message };
    if (error instanceof NoAnswerError) return { type: 'input_unavailable', error: error.message };
    const code = (error as { code?: unknown }).code;
    if (code === 'INPUT_UNAVAILABLE') {
      return { type: 'input_unavailable', error: `${what}: ${errorMessage(error)}` };
    }
    if (code === 'REQUEST_TIMEOUT') {
      return { type: 'timeout', error: `${what} did not finish within ${timeout / 1000} s` };
    }
    // A JSON-RPC error (numeric code) is the upstream's answer and may mean "no such tool". A
    // local failure (string code: crashed, cannot start) is reported as is, without restarting
    // the upstream just to ask for its tool list.
    if (typeof code === 'number' && (await isUnknownTool(connection, call.tool_name))) {
      return notFound(call);
    }
    return { type: 'tool_error', error: `${what} failed: ${errorMessage(error)}` };
  }
  if (result.isError) {
    if (await isUnknownTool(connection, call.tool_name)) return notFound(call);
    return {
      type: 'tool_error',
      error: `${what}: ${contentText(result) || 'the tool reported an error'}`,
    };
  }
  return { result: shape(result), ...(approval.grant && { grant: approval.grant }) };
}

/**
 * Marks `call` privileged when its tool is, then asks the gate: the grant that approved it (if
 * one did), or the refusal.
 */
async function approve(
  { connections, approval }: RunToolCallDeps,
  call: ToolCall,
  signal: AbortSignal | undefined,
  grant: string | undefined,
): Promise<{ grant?: string } | { error: string; type: ToolCallErrorType }> {
  let checked: ToolCall = call;
  try {
    if (await isPrivilegedCall(connections.get(call.server_name), call.tool_name)) {
      checked = { ...call, privileged: true };
    }
  } catch (error) {
    // The listing says whether the tool is privileged: unread, nothing is called.
    return {
      type: 'tool_error',
      error: `${call.server_name}.${call.tool_name} failed: ${errorMessage(error)}`,
    };
  }
  try {
    return { grant: await approval.check(checked, { signal, grant }) };
  } catch (error) {
    if (!(error instanceof ApprovalDeniedError)) throw error;
    const type = (
      {
        rejected: 'rejected',
        timeout: 'approval_timeout',
        unavailable: 'approval_unavailable',
        cancelled: 'rejected',
      } as const
    )[error.code];
    return { type, error: error.message };
  }
}

/**
 * What kernel code receives: the structured content when the tool sent it, else the text items
 * joined by newlines. Non-text items (images, resources) are named, not dropped silently.
 */
export function resultValue(result: CallToolResult): unknown {
  if (result.structuredContent !== undefined && result.structuredContent !== null) {
    return result.structuredContent;
  }
  return contentText(result);
}

function contentText(result: CallToolResult): string {
  return (result.content ?? [])
    .map((item) => (item.type === 'text' ? item.text : `[${describeContent(item)} not shown]`))
    .join('\n');
}

function describeContent(item: CallToolResult['content'][number]): string {
  if (item.type === 'image' || item.type === 'audio') return `${item.type} (${item.mimeType})`;
  if (item.type === 'resource') return `resource ${item.resource.uri}`;
  if (item.type === 'resource_link') return `resource link ${item.uri}`;
  return `${(item as { type: string }).type} content`;
}

/** Asked only after a failure, so a healthy call costs no extra `tools/list`. */
async function isUnknownTool(connection: ToolConnection, toolName: string): Promise<boolean> {
  try {
    const tools = await connection.listTools();
    return !tools.some((tool) => tool.name === toolName);
  } catch {
    return false; // the server itself is failing: that is the error to report
  }
}

function notFound(call: ToolCall): ToolCallReply {
  return {
    type: 'not_found',
    error: `MCP server '${call.server_name}' has no tool '${call.tool_name}'`,
  };
}
