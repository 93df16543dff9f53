/**
 * Privileged tools (DESIGN decision 15, "privileges are not tools"): a tool that runs something
 * on the host on the caller's behalf — registering a server command, installing packages,
 * loading plugins — or an operator's switch such as the gate's kill switch.
 *
 * A plugin declares one with `privileged: true` in its `ToolConfig`; the listing then carries
 * `_meta["io.mcpbox/privileged"]: true`. The mark lives in the listing so that it travels with
 * the tool: through code mode's catalog view, through a mirror (mcp-proxy keeps an upstream's
 * listing as sent), and to ipybox's tool server calling a registered server in another process.
 * Every route from kernel code reads it with {@link isPrivileged} and refuses the call unless the
 * operator allowed privileged tools, and then never approves it automatically (ipybox's
 * `ApprovalGate`). A direct call by the client is not affected.
 *
 * @module
 */
import type { Tool } from '@modelcontextprotocol/server';

export const PRIVILEGED_META_KEY = 'io.mcpbox/privileged';

/** Whether `tool`'s listing marks it privileged. */
export function isPrivileged(tool: Pick<Tool, '_meta'>): boolean {
  return tool._meta?.[PRIVILEGED_META_KEY] === true;
}

/** `meta` with the privileged mark added. */
export function withPrivilegedMark(
  meta: Record<string, unknown> | undefined,
): Record<string, unknown> {
  return { ...meta, [PRIVILEGED_META_KEY]: true };
}
