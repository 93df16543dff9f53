/**
 * What the tool server needs of its upstream connections: one server's connection
 * (`ToolConnection`, as the framework's `UpstreamConnection` offers it) and the named set of them
 * (`ToolConnections`, as its `UpstreamPool` offers it). Types only, in a module of their own so
 * the call path (`runToolCall.ts`) and the privilege check (`privilege.ts`) both read them
 * without importing each other.
 *
 * @module
 */
import type { CallOptions } from '@mcpbox/framework';
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';

/** One upstream server's connection, as the framework's `UpstreamConnection` offers it. */
export interface ToolConnection {
  callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    options?: CallOptions,
  ): Promise<CallToolResult>;
  listTools(): Promise<Tool[]>;
  /** Whether `name` is privileged, for a connection that knows without listing (code mode). */
  privileged?(name: string): boolean;
}

/**
 * Named upstream servers with lazily started, cached, self-restarting connections: the
 * framework's `UpstreamPool` satisfies this. Its params (and secrets) stay on the host side.
 */
export interface ToolConnections {
  has(name: string): boolean;
  names(): string[];
  get(name: string): ToolConnection;
  closeAll(): Promise<void>;
}
