/**
 * Kernel handles as tool arguments and results: the `kernel` argument of `execute_ipython_cell`
 * and `reset`, the `new_kernel` tool, and how a result names the kernel it ran in (always in
 * `_meta`, and in the text when the caller can come back to it only with the handle).
 *
 * @module
 */
import { errorMessage, type PluginServer } from '@mcpbox/framework';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { KernelLease } from '../kernels/kernels.ts';
import type { Ipybox } from '../server/ipybox.ts';

/** Where a result's `_meta` names the kernel's handle. */
export const KERNEL_META_KEY = 'ipybox/kernel';

/** The optional `kernel` argument. */
export const kernelArgument = z
  .string()
  .optional()
  .describe(
    'Handle of the kernel to use, as returned by new_kernel or named by an earlier result ' +
      '("ipk_..."). Omit it to use your own kernel (your MCP session\'s, connection\'s or OAuth ' +
      "principal's); a caller with none of these (an unauthenticated request without a session) " +
      'gets a new kernel whose handle the result names: pass it back to keep its state.',
  );

/** `result` with the kernel's handle in `_meta`, and in its text when the caller needs it. */
export function withKernel(result: CallToolResult, lease: KernelLease): CallToolResult {
  const meta = { ...result._meta, [KERNEL_META_KEY]: lease.handle };
  if (!(lease.opened && lease.handleNeeded)) return { ...result, _meta: meta };
  const note = {
    type: 'text' as const,
    text: `[new kernel: pass kernel="${lease.handle}" to keep using its state]`,
  };
  return { ...result, content: [...(result.content ?? []), note], _meta: meta };
}

export function registerKernelTools(server: PluginServer, ipybox: Ipybox): void {
  ipybox.followSessions(server);
  server.registerTool(
    'new_kernel',
    {
      title: 'New kernel',
      description:
        'Open a new IPython kernel with fresh state, independent of your other kernels, and ' +
        'return its handle. Pass the handle as `kernel` to execute_ipython_cell and reset to ' +
        'use it. It belongs to you (your OAuth principal or MCP session); it is closed after ' +
        'kernel_idle_timeout seconds without calls, or when the session that opened it ends. ' +
        'Workspace files, packages and mcptools/ are shared by all kernels.',
      annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async (ctx) => {
      try {
        const lease = await ipybox.newKernel(ctx);
        return {
          content: [{ type: 'text', text: lease.handle }],
          structuredContent: { kernel: lease.handle },
          _meta: { [KERNEL_META_KEY]: lease.handle },
        };
      } catch (error) {
        return { isError: true, content: [{ type: 'text', text: errorMessage(error) }] };
      }
    },
  );
}
