/**
 * Calls tools of this same server as a client would, for `proxy__run`: through a private MCP
 * session over an in-memory transport. The call therefore takes the normal path — argument
 * validation, every tool-call interceptor (logs, pre-call validator, TOTP gate) — instead of
 * reaching into the catalog around them. Progress is forwarded and cancellation passed on.
 *
 * @module
 */

import type { McpboxServer, ToolContext } from '@mcpbox/framework';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export class InnerClient {
  readonly #server: McpboxServer;
  #client: Promise<Client> | undefined;

  constructor(server: McpboxServer) {
    this.#server = server;
  }

  #connect(): Promise<Client> {
    this.#client ??= (async () => {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await this.#server.connect(serverSide);
      const client = new Client({ name: 'mcp-proxy proxy__run', version: '0.1.0' });
      await client.connect(clientSide);
      return client;
    })();
    return this.#client;
  }

  /** Calls a tool; progress goes to the outer call's client, its abort signal cancels. */
  async callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    ctx: ToolContext,
  ): Promise<CallToolResult> {
    const client = await this.#connect();
    const wantsProgress = ctx._meta?.progressToken !== undefined;
    return (await client.callTool({ name, arguments: args ?? {} }, undefined, {
      signal: ctx.signal,
      // No timeout of our own: the outer request's own timeout and cancellation govern.
      timeout: 2_147_483_647,
      ...(wantsProgress
        ? {
            onprogress: (p) => void ctx.reportProgress(p.progress, p.total, p.message),
            resetTimeoutOnProgress: true,
          }
        : {}),
    })) as CallToolResult;
  }

  async close(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    if (client) await (await client).close().catch(() => undefined);
  }
}
