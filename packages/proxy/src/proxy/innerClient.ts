/**
 * Calls tools of this same server for `proxy__run`, on behalf of the caller of `proxy__run`:
 * through the server's dispatcher with the caller's own context, so the call takes the normal
 * path — argument validation and every tool-call interceptor (logs, pre-call validator, TOTP
 * gate) — and the gate sees the caller's own identity and unlocks, never a shared inner
 * session's. Progress and cancellation are the caller's, since the context is.
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

  /** Nothing to release: there is no inner connection. */
  async close(): Promise<void> {}
}
