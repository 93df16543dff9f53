/**
 * The `execute_ipython_cell` tool: runs a cell in the caller's kernel, streams its output while
 * it runs, and returns the result.
 *
 * @module
 */
import type { PluginServer, ToolContext } from '@mcpbox/framework';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { CellViewer } from '../app/cellViewer.ts';
import type { Elicit } from '../approval/elicitApprover.ts';
import type { KernelLease } from '../kernels/kernels.ts';
import { type CellResultOptions, cellError, cellResult } from '../output/cellResult.ts';
import {
  callerOf,
  OutputResources,
  type OutputScheme,
  type ResourceOwner,
  registerOutputResources,
} from '../output/outputResources.ts';
import { outputStreamer } from '../output/outputStream.ts';
import type { Ipybox } from '../server/ipybox.ts';
import type { IpyboxSettings } from '../settings.ts';
import { userAskersOf } from '../toolserver/upstreamQuestions.ts';
import { runCellTraced } from './cellSpan.ts';
import { kernelArgument, withKernel } from './kernelTools.ts';

const EXECUTE_DESCRIPTION = `Execute Python code in a stateful IPython kernel.

Variables, imports and definitions persist between calls; top-level \`await\` works. The kernel's
working directory is the workspace. Returns the cell's output (stdout, stderr and the value of the
last expression); images (e.g. matplotlib figures) come back as image content (large ones
downscaled) and are saved under images/ in the workspace. Output longer than \`max_output_chars\`
keeps its head and tail; the full output, full-size images and HTML tables are resources
(ipybox://...) named in the result. An exception returns an error with the traceback; a cell
running longer than \`timeout\` seconds is interrupted (variables defined before are kept).

A result that ends with [new kernel: pass kernel="ipk_..."] ran in a kernel opened for this call:
pass that handle as \`kernel\` in later calls (and to reset) to keep its variables.

Tools of MCP servers registered with register_mcp_server are called from code:
  from mcptools.<server_name> import <tool_name>
  result = <tool_name>.run({...arguments...})

A tool result you saw only as a preview (results://<id>) loads whole in code:
  from mcptools import results; df = results.load("results://<id>")  # DataFrame for tabular JSON`;

/** The same tool under another name and description (code mode's `execute_code`). */
export interface ExecuteToolOptions {
  name?: string;
  title?: string;
  description?: string;
  /**
   * Where long outputs and images are kept as resources: default `ipybox://` (`cell_output`,
   * `cell_image`); a second plugin in the same server names its own (templates may be
   * registered once); `false`: not kept (long outputs are cut in the middle).
   */
  outputResources?: OutputScheme | false;
  /** Runs before each cell, with the kernel it will run in (code mode refreshes mcptools). */
  beforeCell?: (lease: KernelLease) => Promise<void>;
  /** Shows the cell's rich outputs as an MCP App to clients that render them (`app/`). */
  viewer?: CellViewer;
}

export function registerExecuteTool(
  server: PluginServer,
  ipybox: Ipybox,
  options: ExecuteToolOptions = {},
): void {
  const outputs =
    options.outputResources === false
      ? undefined
      : new OutputResources({ scheme: options.outputResources });
  if (outputs) registerOutputResources(server, outputs);
  server.registerTool(
    options.name ?? 'execute_ipython_cell',
    {
      title: options.title ?? 'Execute IPython cell',
      description: options.description ?? EXECUTE_DESCRIPTION,
      inputSchema: { ...cellInputSchema(ipybox.settings), kernel: kernelArgument },
      annotations: { destructiveHint: true, openWorldHint: true },
      // A cell waiting in the kernel for an approval cannot be re-run: a 2026 request's question
      // ends it with input_required and the retry brings the answer to the waiting cell. An
      // unanswered question gives up with the approval timeout (ApprovalTimeout in Python).
      // A client with the Tasks extension gets each cell as a task: output so far on tasks/get,
      // tasks/cancel interrupts the kernel (variables kept).
      keepsRunning: { inputTimeoutMs: ipybox.settings.approvalTimeoutMs, tasks: true },
      ...(options.viewer && { _meta: options.viewer.toolMeta }),
    },
    cellHandler(ipybox, outputs, options),
  );
}

/** The arguments of a cell (Python's or code mode's in any language), without `kernel`. */
export function cellInputSchema({ maxOutputChars, maxOutputCharsLimit }: IpyboxSettings) {
  return {
    code: z.string().describe('Python code to execute'),
    timeout: z
      .number()
      .positive()
      .max(2_000_000)
      .default(120)
      .describe('Maximum execution time in seconds (time waiting for approval not counted)'),
    max_output_chars: z
      .number()
      .int()
      .positive()
      .default(maxOutputChars)
      .describe(
        `Output beyond this many characters is cut in the middle (head and tail kept, the traceback always shown; the full output stays readable as a resource). At most ${maxOutputCharsLimit}`,
      ),
  };
}

export interface CellArguments {
  code: string;
  timeout: number;
  max_output_chars: number;
  kernel?: string;
}

/** How a cell's output is shown: cut to what the caller asked (within the server's bound). */
export function shownOptions(
  { maxOutputCharsLimit }: IpyboxSettings,
  outputs: OutputResources | undefined,
  maxOutputChars: number,
  owner: ResourceOwner,
): CellResultOptions {
  return {
    maxOutputChars: Math.min(maxOutputChars, maxOutputCharsLimit),
    maxOutputCharsLimit,
    requestedChars: maxOutputChars > maxOutputCharsLimit ? maxOutputChars : undefined,
    resources: outputs && { store: outputs, owner },
  };
}

/** Runs a Python cell in the caller's kernel (or the one `kernel` names). */
export function cellHandler(
  ipybox: Ipybox,
  outputs: OutputResources | undefined,
  options: Pick<ExecuteToolOptions, 'beforeCell' | 'viewer'> = {},
): (args: CellArguments, ctx: ToolContext) => Promise<CallToolResult> {
  return async ({ code, timeout, max_output_chars, kernel }, ctx) => {
    const lease = await ipybox.kernelFor(ctx, kernel);
    const { session } = lease;
    const shown = shownOptions(ipybox.settings, outputs, max_output_chars, {
      caller: callerOf(ctx),
      kernel: session.id,
    });
    const viewer = options.viewer?.wanted(ctx) ? options.viewer : undefined;
    try {
      // Awaited only when there is something to wait for: each await is a turn per cell.
      if (options.beforeCell) await options.beforeCell(lease);
      if (viewer) await viewer.prepare(session);
      const result = await runCellTraced(session, code, {
        timeoutMs: timeout * 1000,
        onChunk: outputStreamer(ctx, shown.maxOutputChars),
        // Asked only for calls that need a decision: every one under `approval: elicit`, a
        // code-mode rule's, a privileged tool's under `auto` (the others never reach it).
        elicit: approvalElicitor(ctx),
        askUser: userAskersOf(ctx),
        signal: ctx.mcpReq.signal,
        context: ctx,
      });
      const shownResult = await cellResult(result, shown);
      return withKernel(
        viewer ? viewer.attach(shownResult, result, ctx, session) : shownResult,
        lease,
      );
    } catch (error) {
      const failed = await cellError(error, shown);
      return withKernel(viewer ? viewer.attachFailed(failed, error, ctx, session) : failed, lease);
    }
  };
}

/**
 * How a cell's approval question reaches the user: `ctx.elicit`, answered live — a 2025
 * session's real request, or (the tool keeps running) a 2026 request's `input_required` round
 * whose retry brings the decision to the waiting cell. A `replay` context would re-run the cell
 * to ask; it cannot occur for this tool, and is refused rather than approving what a second run
 * might call.
 */
export function approvalElicitor(ctx: ToolContext): Elicit {
  if (ctx.inputMode === 'live') return (params, signal) => ctx.elicit(params, { signal });
  return async () => {
    throw new Error(
      'approval by elicitation needs a client that can answer while the cell runs; this ' +
        'request would re-run the cell to ask. Use --approval auto or deny, or approve over the ' +
        'approval WebSocket',
    );
  };
}
