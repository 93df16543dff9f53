/**
 * Whether a tool call from kernel code is privileged: the called tool's listing marks it
 * (`isPrivileged`, `_meta["io.mcpbox/privileged"]`) — `register_mcp_server`, `install_package`,
 * the gate's lock, mcp-proxy's `proxy__*` operations, wherever they are served (this process's
 * catalog in code mode, a mirror, another ipybox or mcp-proxy registered as a server). The
 * approval gate decides what follows (`approval/approvalGate.ts`).
 *
 * A connection that knows its tools without asking (code mode's catalog) answers itself; for an
 * upstream server the listing is read at the connection's first call and again whenever a call
 * names a tool it did not list, so the upstream starts at its first call even when that call is
 * then refused. A listing that cannot be read fails the call: nothing unknown runs.
 *
 * @module
 */
import { isPrivileged } from '@mcpbox/framework';
import type { Tool } from '@modelcontextprotocol/server';
import type { ToolConnection } from './connections.ts';

/** Each upstream connection's last listing; it goes with the connection (reset, restart). */
const listings = new WeakMap<ToolConnection, readonly Tool[]>();

export async function isPrivilegedCall(
  connection: ToolConnection,
  toolName: string,
): Promise<boolean> {
  if (connection.privileged) return connection.privileged(toolName);
  let tools = listings.get(connection);
  if (!tools?.some((tool) => tool.name === toolName)) {
    tools = await connection.listTools();
    listings.set(connection, tools);
  }
  return tools.some((tool) => tool.name === toolName && isPrivileged(tool));
}
