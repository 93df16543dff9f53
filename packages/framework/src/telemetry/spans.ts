/**
 * The spans around a tool call (an interceptor on the catalog's chain, so plugin tools, mirrored
 * tools and calls through `proxy__run` alike get one) and around a request to an upstream MCP
 * server (which carries our trace context on, in `_meta` and, over HTTP, as headers).
 *
 * @module
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ToolCall } from '../catalog/toolCalls.ts';
import type { Principal } from '../contract/principal.ts';
import { inSpan, tracingEnabled, withTraceMeta } from './tracing.ts';

const toolFailure = (result: CallToolResult) => (result.isError ? 'tool_error' : undefined);

/**
 * Interceptor: one internal span per tool call, named `execute_tool <tool>`, naming who called
 * (`enduser.id`, the principal's id, for every caller but an anonymous one; `mcp.principal.kind`)
 * and through which view (`mcpbox.view`).
 */
export function toolCallSpan(
  call: ToolCall,
  next: () => Promise<CallToolResult>,
): Promise<CallToolResult> {
  if (!tracingEnabled()) return next();
  const principal = call.ctx.principal as Principal | undefined;
  return inSpan(
    () => ({
      name: `execute_tool ${call.tool}`,
      kind: 'internal',
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': call.tool,
        'mcpbox.plugin': call.plugin,
        'enduser.id': principal && principal.kind !== 'anonymous' ? principal.id : undefined,
        'mcp.principal.kind': principal?.kind ?? 'anonymous',
        'mcpbox.view': call.ctx.view,
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
