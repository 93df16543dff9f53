/**
 * The ipybox MCP tools: `execute_ipython_cell`, `install_package`, `register_mcp_server`,
 * `reset` — the Python ipybox's four tools, with the same names, parameters and defaults.
 *
 * @module
 */
import { errorMessage, type PluginServer, type ToolContext } from '@mcpbox/framework';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { ExecutionChunk } from '../kernel/output.ts';
import { cellError, cellResult } from './cellResult.ts';
import type { Elicit } from './elicitApprover.ts';
import type { Ipybox } from './ipybox.ts';

const EXECUTE_DESCRIPTION = `Execute Python code in a stateful IPython kernel.

Variables, imports and definitions persist between calls; top-level \`await\` works. The kernel's
working directory is the workspace. Returns the cell's output (stdout, stderr and the value of the
last expression); images (e.g. matplotlib figures) come back as image content and are saved under
images/ in the workspace. An exception returns an error with the traceback; a cell running longer
than \`timeout\` seconds is interrupted (variables defined before are kept).

Tools of MCP servers registered with register_mcp_server are called from code:
  from mcptools.<server_name> import <tool_name>
  result = <tool_name>.run({...arguments...})`;

const REGISTER_DESCRIPTION = `Register an MCP server and generate a Python API for its tools under mcptools/ in the workspace.

Returns the generated module names. Use them in execute_ipython_cell:
  from mcptools.<server_name> import <tool_name>
  <tool_name>.run(<tool_name>.Params(...))   # or a plain dict of arguments
server_params is {"command": ..., "args": [...], "env": {...}} for a stdio server or
{"url": ..., "headers": {...}} for an HTTP server. \${VAR} placeholders (e.g. "\${API_KEY}") are
replaced from the server's environment when connecting; their values never reach the kernel or disk.
Registering the same name again replaces the generated modules; call reset() to re-import them.
mcptools/ survives reset().`;

function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}

function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/** The text a client sees for one streamed chunk (images are announced, not inlined). */
function chunkText(chunk: ExecutionChunk): string {
  if (chunk.kind === 'stream') return chunk.text;
  const plain = chunk.data['text/plain'];
  if (chunk.images.length > 0) return chunk.images.map((i) => `[image ${i.path}]\n`).join('');
  return typeof plain === 'string' ? `${plain}\n` : '';
}

/**
 * Streams a cell's output to the client while it runs, when the client asked for progress
 * (`_meta.progressToken`): each piece of new output is one progress notification (its
 * `message`) and one `info` log message (logger `ipybox`).
 */
function outputStreamer(ctx: ToolContext): ((chunk: ExecutionChunk) => void) | undefined {
  if (ctx.mcpReq._meta?.progressToken === undefined) return undefined;
  let progress = 0;
  return (chunk) => {
    const text = chunkText(chunk);
    if (text === '') return;
    progress += 1;
    void ctx.reportProgress(progress, undefined, text).catch(() => undefined);
    void ctx.log('info', text, 'ipybox').catch(() => undefined);
  };
}

export function registerIpyboxTools(server: PluginServer, ipybox: Ipybox): void {
  server.registerTool(
    'execute_ipython_cell',
    {
      title: 'Execute IPython cell',
      description: EXECUTE_DESCRIPTION,
      inputSchema: {
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
          .default(5000)
          .describe('Output beyond this many characters is truncated'),
      },
      annotations: { destructiveHint: true, openWorldHint: true },
    },
    async ({ code, timeout, max_output_chars }, ctx) => {
      const session = await ipybox.session(ctx.sessionId);
      try {
        const result = await session.runCell(code, {
          timeoutMs: timeout * 1000,
          onChunk: outputStreamer(ctx),
          elicit: ipybox.settings.approval === 'elicit' ? approvalElicitor(ctx) : undefined,
          signal: ctx.mcpReq.signal,
        });
        return cellResult(result, max_output_chars);
      } catch (error) {
        return cellError(error, max_output_chars);
      }
    },
  );

  server.registerTool(
    'install_package',
    {
      title: 'Install Python package',
      description:
        "Install a Python package with pip into the workspace virtual environment (.venv, created on first use with access to the system packages) that the kernel uses. Accepts a name with an optional version specifier, a URL or a local path. Returns pip's output.",
      inputSchema: {
        package_name: z
          .string()
          .describe("Requirement: 'name', 'name==1.2', 'name>=1', a URL or a local path"),
      },
      annotations: { destructiveHint: false, openWorldHint: true },
    },
    async ({ package_name }) => {
      try {
        const { output, createdVenv } = await ipybox.installPackage(package_name);
        const note = createdVenv
          ? `Created the workspace virtual environment ${ipybox.venv.dir}; the kernel can import from it now.\n\n`
          : '';
        return textResult(`${note}${output}`);
      } catch (error) {
        return errorResult(errorMessage(error));
      }
    },
  );

  server.registerTool(
    'register_mcp_server',
    {
      title: 'Register MCP server',
      description: REGISTER_DESCRIPTION,
      inputSchema: {
        server_name: z
          .string()
          .describe('Name of the server; the Python package mcptools.<server_name>'),
        server_params: z
          .record(z.string(), z.unknown())
          .describe('{"command","args","env"} (stdio) or {"url","headers"} (HTTP)'),
      },
      annotations: { destructiveHint: false, openWorldHint: true },
    },
    async ({ server_name, server_params }) => {
      try {
        const names = await ipybox.registerServer(server_name, server_params);
        return { content: names.map((name) => ({ type: 'text' as const, text: name })) };
      } catch (error) {
        return errorResult(`register_mcp_server ${server_name}: ${errorMessage(error)}`);
      }
    },
  );

  server.registerTool(
    'reset',
    {
      title: 'Reset kernel',
      description:
        'Restart the IPython kernel with fresh state (variables and imports are gone) and close MCP server connections (they restart on next use). Workspace files, installed packages and mcptools/ are kept.',
      annotations: { destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (ctx) => {
      try {
        const session = await ipybox.session(ctx.sessionId);
        await session.reset();
        return textResult(
          'Kernel reset: fresh state; workspace files, packages and mcptools/ kept.',
        );
      } catch (error) {
        return errorResult(`reset failed: ${errorMessage(error)}`);
      }
    },
  );
}

/**
 * How a cell's approval question reaches the user. Only a caller that answers while the handler
 * keeps running (`inputMode: 'live'`, a 2025 session) can approve mid-cell: for a `replay` caller
 * (a 2026 request) asking would end the request and re-run the cell on the retry — running its
 * code twice, and approving whatever call the second run makes. Such a call is refused instead.
 */
function approvalElicitor(ctx: ToolContext): Elicit {
  if (ctx.inputMode === 'live') return (params) => ctx.elicit(params);
  return async () => {
    throw new Error(
      'approval by elicitation needs a client that can answer while the cell runs (an MCP ' +
        '2025-11-25 session); this 2026-07-28 request would re-run the cell to ask. Use ' +
        '--approval auto or deny, or approve over the approval WebSocket',
    );
  };
}
