/**
 * The `save_skill` tool (code mode's `save_code_skill`): turns code that worked in a kernel into a skill of the workspace
 * (`skills/<name>/`: `SKILL.md`, the script, `manifest.json` with SHA-256 digests), once the
 * save is approved.
 *
 * The approval is the kernel's: the call goes to the caller's kernel session's approval gate as
 * `<plugin>.save_skill` with its arguments (`KernelSession.approve`), so the same policy, code
 * mode's rules, approvers (elicitation to this client, the approval WebSocket, the console) and
 * grants decide it as a call from kernel code. A bad or taken name is refused before anyone is
 * asked; a refusal writes nothing.
 *
 * @module
 */
import { errorMessage, type PluginServer } from '@mcpbox/framework';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { ApprovalDeniedError } from '../approval/approvalGate.ts';
import type { Ipybox } from '../server/ipybox.ts';
import { skillModuleName } from '../skills/skillName.ts';
import { approvalElicitor } from './executeTool.ts';
import { kernelArgument } from './kernelTools.ts';

const DESCRIPTION = `Save Python code that worked as a skill of the workspace, so it can be found and reused later.

Give the code, or the cells of your kernel that worked (cells: [-1] is the last one).
Writes skills/<name>/ in the workspace: SKILL.md (your description and notes: when and how to use it),
the code as <name>.py (it keeps its "from mcptools.<server> import <tool>" lines) and manifest.json
(the SHA-256 digest of each file). The save needs an approval, like a tool call from kernel code.
The skill is served at once to every client of this server (skills/list), and a kernel imports it:
  from skills.<name, with - as _> import ...
A skill of the same name is not replaced unless replace is true.`;

function failed(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/**
 * Registers the tool as `name`: code mode's is `save_code_skill`, as the ipybox plugin may be
 * loaded beside it (one catalog, one owner per tool name; like `execute_code`).
 */
export function registerSaveSkillTool(
  server: PluginServer,
  ipybox: Ipybox,
  name = 'save_skill',
): void {
  server.registerTool(
    name,
    {
      title: 'Save code as a skill',
      description: DESCRIPTION,
      inputSchema: {
        name: z
          .string()
          .describe("Skill name: 1-64 lowercase letters, digits and single hyphens ('csv-report')"),
        description: z
          .string()
          .min(1)
          .max(1024)
          .describe('What the skill does and when to use it (shown in skill listings)'),
        code: z
          .string()
          .min(1)
          .optional()
          .describe('The Python code to save, as it ran in the kernel (or give cells)'),
        cells: z
          .array(z.number().int())
          .min(1)
          .optional()
          .describe(
            "Instead of code: cells that worked in your kernel, saved in this order: IPython's " +
              'execution count (In [n]), or -1 for the last cell, -2 for the one before, ...',
          ),
        notes: z.string().optional().describe('How to use it: inputs, outputs, caveats (Markdown)'),
        replace: z
          .boolean()
          .default(false)
          .describe('Replace a skill of the same name (its old files are removed)'),
        kernel: kernelArgument,
      },
      annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: false },
      // A 2026 client answers the approval question as input_required; the save waits for it.
      keepsRunning: { inputTimeoutMs: ipybox.settings.approvalTimeoutMs },
    },
    async ({ name: skill, description, code, cells, notes, replace, kernel }, ctx) => {
      if ((code === undefined) === (cells === undefined)) {
        return failed(`${name}: give either code or cells (the cells of your kernel to save)`);
      }
      try {
        await ipybox.skills.precheck(skill, replace);
        const lease = await ipybox.kernelFor(ctx, kernel);
        const source = code ?? lease.session.history.code(cells ?? []);
        const draft = { name: skill, description, code: source, ...(notes && { notes }) };
        await lease.session.approve(
          {
            server_name: server.name,
            tool_name: name,
            tool_args: { ...draft, replace },
          },
          { elicit: approvalElicitor(ctx), signal: ctx.mcpReq.signal, context: ctx },
        );
        const saved = await ipybox.skills.save(draft, { replace });
        const verb = saved.replaced ? 'Replaced' : 'Saved';
        return {
          content: [
            {
              type: 'text',
              text:
                `${verb} skill ${saved.name} in ${saved.folder} (${saved.files.join(', ')}). ` +
                `Import it in a kernel: from skills.${skillModuleName(saved.name)} import ...`,
            },
          ],
          structuredContent: { name: saved.name, folder: saved.folder, files: saved.files },
        };
      } catch (error) {
        if (error instanceof ApprovalDeniedError) {
          return failed(`skill ${skill} not saved, nothing was written: ${error.message}`);
        }
        return failed(`${name}: ${errorMessage(error)}`);
      }
    },
  );
}
