/**
 * A cell's run as a span of its own (`ipybox.execute`): the child of the `execute_ipython_cell`
 * tool call and the parent of every tool call its code makes — the kernel client puts this
 * span's context into the `execute_request` metadata, and the generated runtime sends it on to
 * the tool server as `traceparent`. Without tracing, just the run.
 *
 * @module
 */
import { inSpan } from '@mcpbox/framework';
import type { ExecutionResult } from '../kernel/execution.ts';
import type { KernelSession, RunCellOptions } from '../kernels/kernelSession.ts';

export function runCellTraced(
  session: KernelSession,
  code: string,
  options: RunCellOptions,
): Promise<ExecutionResult> {
  return inSpan(
    () => ({
      name: 'ipybox.execute',
      kind: 'internal',
      attributes: { 'ipybox.kernel': session.id, 'ipybox.code.chars': code.length },
    }),
    () => session.runCell(code, options),
  );
}
