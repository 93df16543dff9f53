/**
 * The proxy's tool-call log: every call — plugin tools, mirrored upstream tools, `proxy__*`
 * tools including `proxy__run` — appended as one JSON line to `{tool_log_dir}/tool_calls.jsonl`
 * (default `~/.mcp_proxy/logs`). The framework's `JsonlToolLogger` queues each entry and writes
 * it in the background, so logging never raises into a call and never delays it.
 *
 * @module
 */
import { JsonlToolLogger, type ToolCallInterceptor } from '@mcpbox/framework';

export interface ToolCallLog {
  interceptor: ToolCallInterceptor;
  close(): Promise<void>;
  flush(): Promise<void>;
}

export function createToolCallLog(dir: string): ToolCallLog {
  const logger = new JsonlToolLogger({ dir });
  const interceptor: ToolCallInterceptor = async function toolCallLog(call, next) {
    const started = performance.now();
    const details = () => ({
      plugin: call.plugin,
      sessionId: call.ctx.sessionId,
      durationMs: Math.round((performance.now() - started) * 1000) / 1000,
    });
    try {
      const result = await next();
      logger.logCall(call.tool, call.args, result, !result.isError, {
        ...details(),
        outcome: result.isError ? 'error' : 'ok',
      });
      return result;
    } catch (error) {
      logger.logCall(call.tool, call.args, String((error as Error)?.message ?? error), false, {
        ...details(),
        outcome: 'error',
      });
      throw error;
    }
  };
  return { interceptor, close: () => logger.close(), flush: () => logger.flush() };
}
