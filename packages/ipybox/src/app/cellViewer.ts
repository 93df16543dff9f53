/**
 * ipybox outputs as an MCP App: what `execute_ipython_cell` adds for a client that renders MCP
 * Apps (`io.modelcontextprotocol/ui`), and nothing for one that does not.
 *
 * - The tool names the viewer (`_meta.ui.resourceUri` = `ui://ipybox/viewer`, a static part of
 *   its listing that other clients ignore).
 * - Before a UI client's cell, the kernel learns to keep the DataFrames it displays
 *   (`kernelFrames.ts`); after it, the result's `_meta` tells the viewer what to show: each frame
 *   (an id of 128 random bits, rows, column names) and each kept HTML output (its
 *   `ipybox://outputs/` link). The content — what the model reads — is the same as for any client.
 * - `view_frame_page`, an app-only tool (`visibility: ["app"]`; the framework lists it only to
 *   clients that declared the extension), returns one page of a frame, sorted in the kernel: a
 *   frame of 100k rows never passes through the model's context.
 *
 * @module
 */
import { errorMessage, type PluginServer, type ToolContext } from '@mcpbox/framework';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { CodeExecutionError, KernelError } from '../kernel/errors.ts';
import type { ExecutionOutput } from '../kernel/output.ts';
import type { KernelSession } from '../kernels/kernelSession.ts';
import { callerOf } from '../output/outputResources.ts';
import { FrameStore, type FrameSummary } from './frameStore.ts';
import { FramePageError, installFrameCapture, readFramePage } from './kernelFrames.ts';
import { FRAME_PAGE_TOOL, rendersApps, UI_EXTENSION, VIEWER_URI } from './uiExtension.ts';
import { registerViewerResource } from './viewerResource.ts';

/** The result `_meta` key the viewer reads. */
export const VIEWER_META_KEY = 'ipybox/viewer';
export const FRAME_MIME = 'application/vnd.ipybox.frame+json';
export const MAX_PAGE_ROWS = 500;
/** Frames of one cell the viewer gets (the last ones): the kernel keeps its last 16 anyway. */
export const MAX_CELL_FRAMES = 16;

/** One output the viewer shows besides the text and the images (in the cell's order). */
export type ViewerOutput = ({ kind: 'frame' } & FrameSummary) | { kind: 'html'; uri: string };

export class CellViewer {
  readonly #frames = new FrameStore();

  /** The `_meta` of the tool that links the viewer. */
  readonly toolMeta = { ui: { resourceUri: VIEWER_URI } };

  /** Whether this request's client shows the viewer. */
  wanted(ctx: ToolContext): boolean {
    return rendersApps(ctx);
  }

  /**
   * Before a UI client's cell: its kernel keeps the DataFrames it displays. If the kernel
   * refuses the hook (user code broke IPython's formatters), the cell still runs, without
   * tables; a kernel that cannot start fails the cell as it would have anyway.
   */
  async prepare(session: KernelSession): Promise<void> {
    try {
      await installFrameCapture(session);
    } catch (error) {
      if (!(error instanceof CodeExecutionError)) throw error;
    }
  }

  /** The cell's result with what the viewer needs in `_meta`; content untouched. */
  attach(
    result: CallToolResult,
    output: ExecutionOutput | undefined,
    ctx: ToolContext,
    session: KernelSession,
  ): CallToolResult {
    const outputs = output ? this.#outputs(result, output, callerOf(ctx), session) : [];
    return { ...result, _meta: { ...result._meta, [VIEWER_META_KEY]: { outputs } } };
  }

  /** A failed cell's result with the viewer data of what it showed before it failed. */
  attachFailed(
    result: CallToolResult,
    error: unknown,
    ctx: ToolContext,
    session: KernelSession,
  ): CallToolResult {
    const output =
      error instanceof CodeExecutionError || error instanceof KernelError
        ? error.output
        : undefined;
    return this.attach(result, output, ctx, session);
  }

  #outputs(
    result: CallToolResult,
    output: ExecutionOutput,
    caller: string,
    session: KernelSession,
  ): ViewerOutput[] {
    const bundles = [...output.displays, ...(output.result ? [output.result] : [])];
    // cellResult links the last HTML outputs in order: pair them with their bundles.
    const links = result.content
      .filter((item) => item.type === 'resource_link' && item.mimeType === 'text/html')
      .map((item) => (item as { uri: string }).uri);
    const withHtml = bundles.filter((bundle) => hasHtml(bundle['text/html']));
    const linked = new Map<unknown, string>();
    const firstLinked = withHtml.length - links.length;
    withHtml.forEach((bundle, i) => {
      const uri = links[i - firstLinked];
      if (i >= firstLinked && uri) linked.set(bundle, uri);
    });
    // A loop displaying a frame per step must not flood the result's _meta (nor the store).
    const framed = bundles.filter((bundle) => bundle[FRAME_MIME] !== undefined);
    const kept = new Set(framed.slice(-MAX_CELL_FRAMES));
    const shown: ViewerOutput[] = [];
    for (const bundle of bundles) {
      const frame = kept.has(bundle)
        ? this.#frames.add(caller, session, bundle[FRAME_MIME])
        : undefined;
      const uri = linked.get(bundle);
      if (frame) shown.push({ kind: 'frame', ...frame });
      else if (uri) shown.push({ kind: 'html', uri });
    }
    return shown;
  }

  /** Registers the viewer resource and the app-only paging tool. */
  register(server: PluginServer): void {
    this.#frames.followSessions(server);
    registerViewerResource(server);
    server.registerTool(
      FRAME_PAGE_TOOL,
      {
        title: 'DataFrame page (ipybox viewer)',
        description:
          'One page of a DataFrame shown by the ipybox viewer, optionally sorted by a column (sorted in the kernel). Called by the viewer app, not by the model.',
        inputSchema: {
          frame: z.string().max(64).describe('The frame id from the viewer data of a cell result'),
          offset: z.number().int().min(0).default(0).describe('First row of the page'),
          limit: z
            .number()
            .int()
            .min(1)
            .max(MAX_PAGE_ROWS)
            .default(50)
            .describe(`Rows in the page (at most ${MAX_PAGE_ROWS})`),
          sort_column: z
            .number()
            .int()
            .min(0)
            .optional()
            .describe('Position of the column to sort by'),
          descending: z.boolean().default(false),
        },
        annotations: { readOnlyHint: true, openWorldHint: false },
        _meta: { ui: { resourceUri: VIEWER_URI, visibility: ['app'] } },
      },
      async ({ frame, offset, limit, sort_column, descending }, ctx) => {
        if (!rendersApps(ctx)) {
          return errorResult(
            `${FRAME_PAGE_TOOL} serves the ipybox viewer, an MCP App: only a client that declares the ${UI_EXTENSION} extension can call it`,
          );
        }
        const stored = this.#frames.get(frame, callerOf(ctx));
        if (!stored) {
          return errorResult(
            `ipybox has no DataFrame ${frame} for this caller: ids come from the viewer data of your own cell results, and only the latest 200 are kept (all are gone after a restart). Run the cell again.`,
          );
        }
        try {
          const page = await readFramePage(stored.session, stored.key, {
            offset,
            limit,
            sortColumn: sort_column,
            descending,
          });
          const last = Math.min(page.offset + page.data.length, page.rows);
          const order =
            sort_column === undefined
              ? ''
              : ` sorted by ${page.columns[sort_column]}${descending ? ' (descending)' : ''}`;
          return {
            content: [
              { type: 'text', text: `rows ${page.offset + 1}–${last} of ${page.rows}${order}` },
            ],
            structuredContent: page as unknown as Record<string, unknown>,
          };
        } catch (error) {
          const reason = error instanceof FramePageError ? error.message : errorMessage(error);
          return errorResult(`could not read DataFrame ${frame}: ${reason}`);
        }
      },
    );
  }
}

function hasHtml(value: unknown): boolean {
  return typeof value === 'string' && value.trim() !== '';
}

function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}
