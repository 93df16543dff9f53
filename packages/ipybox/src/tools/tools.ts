/**
 * The ipybox MCP tools: `execute_ipython_cell` (in `executeTool.ts`), `install_package`,
 * `register_mcp_server`, `reset` — the Python ipybox's four tools, with the same names,
 * parameters and defaults — and ours: `new_kernel` (`kernelTools.ts`) and `save_skill`
 * (`saveSkillTool.ts`).
 *
 * `install_package` and `register_mcp_server` run programs on the host, outside any sandbox
 * (pip; the server's command): they are privileged, so kernel code — through `mcptools` or code
 * mode — cannot call them unless the operator allows it (`catalog/privileged.ts` in the
 * framework, `approval/approvalGate.ts`).
 *
 * @module
 */
import { errorMessage, type PluginServer } from '@mcpbox/framework';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { CellViewer } from '../app/cellViewer.ts';
import type { Ipybox } from '../server/ipybox.ts';
import { registerExecuteTool } from './executeTool.ts';
import { kernelArgument, registerKernelTools, withKernel } from './kernelTools.ts';
import { registerSaveSkillTool } from './saveSkillTool.ts';

const REGISTER_DESCRIPTION = `Register an MCP server and generate a Python API for its tools under mcptools/ in the workspace.

Returns the generated module names. Use them in execute_ipython_cell:
  from mcptools.<server_name> import <tool_name>
  <tool_name>.run(<tool_name>.Params(...))   # or a plain dict of arguments
server_params is {"command": ..., "args": [...], "env": {...}} for a stdio server or
{"url": ..., "headers": {...}} for an HTTP server. \${VAR} placeholders (e.g. "\${API_KEY}") are
replaced from the server's environment when connecting; their values never reach the kernel or disk.
Registering the same name again replaces the generated modules; call reset() to re-import them.
mcptools/ survives reset(), and registrations are remembered when ipybox restarts (one holding a
literal secret instead of a \${VAR} placeholder is not: the result says so).`;

const stringMap = (what: string) =>
  z.record(z.string(), z.string()).describe(`${what}; values may hold \${VAR} placeholders`);

/**
 * `server_params` as clients see it: each field typed, unknown keys let through so that
 * `parseUpstreamParams` names them ("unknown key 'arg'") and says which fields go together.
 */
const serverParams = z
  .looseObject({
    command: z.string().optional().describe('stdio: the program to run'),
    args: z.array(z.string()).optional().describe('stdio: its arguments'),
    env: stringMap('stdio: environment variables for it').optional(),
    cwd: z.string().optional().describe('stdio: its working directory'),
    url: z.string().optional().describe('HTTP: the Streamable HTTP (or SSE) endpoint'),
    headers: stringMap('HTTP: headers sent with every request').optional(),
  })
  .meta({ additionalProperties: true })
  .describe('{"command","args","env","cwd"} (stdio) or {"url","headers"} (HTTP)');

function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}

function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

export function registerIpyboxTools(server: PluginServer, ipybox: Ipybox): void {
  const viewer = new CellViewer();
  viewer.register(server);
  registerExecuteTool(server, ipybox, { viewer });
  registerKernelTools(server, ipybox);
  registerSaveSkillTool(server, ipybox);

  server.registerTool(
    'install_package',
    {
      title: 'Install Python package',
      description:
        "Install a Python package with pip into the workspace virtual environment (.venv, created on first use with access to the system packages) that the kernel uses. Accepts a name with an optional version specifier, a URL or a local path. pip's output arrives as progress while it runs, and whole in the result.",
      inputSchema: {
        package_name: z
          .string()
          .describe("Requirement: 'name', 'name==1.2', 'name>=1', a URL or a local path"),
      },
      annotations: { destructiveHint: false, openWorldHint: true },
      privileged: true,
    },
    async ({ package_name }, ctx) => {
      try {
        // pip's lines as progress while it runs: an install can take minutes.
        let lines = 0;
        const { output, createdVenv } = await ipybox.installPackage(package_name, {
          onOutput: (line) => void ctx.reportProgress(++lines, undefined, line.slice(0, 500)),
        });
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
        server_params: serverParams,
      },
      annotations: { destructiveHint: false, openWorldHint: true },
      privileged: true,
    },
    async ({ server_name, server_params }) => {
      try {
        const { modules, note } = await ipybox.registerServer(server_name, server_params);
        const lines = note === undefined ? modules : [...modules, note];
        return { content: lines.map((text) => ({ type: 'text' as const, text })) };
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
      inputSchema: { kernel: kernelArgument },
      annotations: { destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ kernel }, ctx) => {
      try {
        const lease = await ipybox.kernelFor(ctx, kernel, { open: false });
        await lease.session.reset();
        return withKernel(
          textResult('Kernel reset: fresh state; workspace files, packages and mcptools/ kept.'),
          lease,
        );
      } catch (error) {
        return errorResult(`reset failed: ${errorMessage(error)}`);
      }
    },
  );
}
