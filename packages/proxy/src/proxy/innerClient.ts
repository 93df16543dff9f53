/**
 * Calls tools of this same server for `proxy__run`, on behalf of the caller of `proxy__run`:
 * through the server's dispatcher with the caller's own context, so the call takes the normal
 * path — argument validation and every tool-call interceptor (logs, pre-call validator, TOTP
 * gate) — and the gate sees the caller's own identity and unlocks, never a shared inner
 * session's. Progress and cancellation are the caller's, since the context is. The caller's
 * principal and view carry with the context, so views and policy decide as for a direct call.
 *
 * @module
 */

import type { McpboxServer, ToolContext } from '@mcpbox/framework';
import type { CallToolResult } from '@modelcontextprotocol/server';

export class InnerClient {
  readonly #server: McpboxServer;

  constructor(server: McpboxServer) {
    this.#server = server;
  }

  /** Calls a tool as the caller of `ctx`. */
  callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    ctx: ToolContext,
  ): Promise<CallToolResult> {
    return this.#server.callTool(name, args, ctx);
  }

  /**
   * Whether the caller of `ctx` may reach `name`: an enabled tool its view includes and the
   * policy lets it list (as its `tools/list` shows it; an argument rule decides each call).
   */
  mayReach(name: string, ctx: ToolContext): boolean {
    const server = this.#server;
    const entry = server.catalog.getTool(name);
    if (entry === undefined || !entry.enabled) return false;
    return server.access.mayList(ctx.principal, ctx.view, entry);
  }

  /** Nothing to release: there is no inner connection. */
  async close(): Promise<void> {}
}
