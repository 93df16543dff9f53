/**
 * The spans around a tool call (an interceptor on the catalog's chain, so plugin tools, mirrored
 * tools and calls through `proxy__run` alike get one) and around a request to an upstream MCP
 * server (which carries our trace context on, in `_meta` and, over HTTP, as headers).
 *
 * @module
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ToolCall } from '../catalog/toolCalls.ts';
import { inSpan, tracingEnabled, withTraceMeta } from './tracing.ts';

const toolFailure = (result: CallToolResult) => (result.isError ? 'tool_error' : undefined);

/** Interceptor: one internal span per tool call, named `execute_tool <tool>`. */
export function toolCallSpan(
  call: ToolCall,
  next: () => Promise<CallToolResult>,
): Promise<CallToolResult> {
  if (!tracingEnabled()) return next();
  return inSpan(
    () => ({
      name: `execute_tool ${call.tool}`,
      kind: 'internal',
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': call.tool,
        'mcpbox.plugin': call.plugin,
      },
    }),
    next,
    toolFailure,
  );
}

/**
 * One client span per request to an upstream (`tools/call <tool>`); `send` gets the params with
 * the span's context in `_meta` (unchanged without tracing).
 */
export function traceUpstreamRequest<T>(
  upstream: string,
  method: string,
  params: Record<string, unknown>,
  send: (params: Record<string, unknown>) => Promise<T>,
): Promise<T> {
  if (!tracingEnabled()) return send(params);
  const target = typeof params.name === 'string' ? params.name : undefined;
  return inSpan(
    () => ({
      name: target ? `${method} ${target}` : method,
      kind: 'client',
      attributes: {
        'mcp.method.name': method,
        'gen_ai.tool.name': method === 'tools/call' ? target : undefined,
        'mcpbox.upstream': upstream,
      },
    }),
    () => send(withTraceMeta(params)),
    (result) => ((result as { isError?: unknown })?.isError === true ? 'tool_error' : undefined),
  );
}
