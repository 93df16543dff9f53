/**
 * Code mode's `execute_code`: one tool for every language the settings offer. Python runs as a
 * cell in the caller's ipybox kernel (`tools/executeTool.ts`); TypeScript and JavaScript in a
 * fresh isolate with the caller's `session` (`js/jsRunner.ts`). Both render their output the same
 * way (`output/cellResult.ts`): long output cut to head and tail, the full text a
 * `codemode://` resource.
 *
 * @module
 */
import { callerKeyOf, type PluginServer, type ToolContext } from '@mcpbox/framework';
import { z } from 'zod';
import type { KernelLease } from '../kernels/kernels.ts';
import { cellError, cellResult } from '../output/cellResult.ts';
import {
  callerOf,
  OutputResources,
  type OutputScheme,
  registerOutputResources,
} from '../output/outputResources.ts';
import type { Ipybox } from '../server/ipybox.ts';
import type { IpyboxSettings } from '../settings.ts';
import {
  approvalElicitor,
  type CellArguments,
  cellHandler,
  cellInputSchema,
  shownOptions,
} from '../tools/executeTool.ts';
import { kernelArgument } from '../tools/kernelTools.ts';
import { userAskersOf } from '../toolserver/upstreamQuestions.ts';
import type { JsRunner } from './js/jsRunner.ts';
import type { CodeLanguage } from './settings.ts';

export interface ExecuteCodeOptions {
  settings: IpyboxSettings;
  /** The default first. */
  languages: readonly CodeLanguage[];
  description: string;
  outputResources: OutputScheme;
  js: JsRunner;
  /** Before each TypeScript/JavaScript execution (code mode waits for the catalog's layout). */
  beforeJs: () => Promise<void>;
  /** Present when Python is offered. */
  python?: { ipybox: Ipybox; beforeCell: (lease: KernelLease) => Promise<void> };
}

export function registerExecuteCode(server: PluginServer, options: ExecuteCodeOptions): void {
  const { settings, languages, js, python } = options;
  const outputs = new OutputResources({ scheme: options.outputResources });
  registerOutputResources(server, outputs);
  const runPython = python && cellHandler(python.ipybox, outputs, python);
  const [first, ...rest] = languages;
  server.registerTool(
    'execute_code',
    {
      title: 'Execute code',
      description: options.description,
      inputSchema: {
        ...cellInputSchema(settings),
        code: z.string().describe(`${languages.join(' or ')} code to execute`),
        language: z
          .enum([first!, ...rest])
          .default(first!)
          .describe(`The language of code (default ${first})`),
        ...(python && { kernel: kernelArgument }),
        ...(languages.includes('typescript') && {
          check: z
            .boolean()
            .default(false)
            .describe(
              "TypeScript only: type-check the code against the tools' declarations first; type errors come back with line and column, and nothing runs",
            ),
        }),
      },
      annotations: { destructiveHint: true, openWorldHint: true },
      // As ipybox's execute tool: a call waiting for an approval keeps running (Python cells
      // and JavaScript executions alike), and clients with Tasks get it as a task.
      keepsRunning: { inputTimeoutMs: settings.approvalTimeoutMs, tasks: true },
    },
    async (input, ctx: ToolContext) => {
      // `kernel` is in the schema only with Python (the kernel handle's own schema checks it).
      const args = input as CellArguments & { language: CodeLanguage; check?: boolean };
      if (args.language === 'python') {
        // The schema offers python only when it is configured.
        return runPython!(args, ctx);
      }
      const caller = callerOf(ctx);
      const shown = shownOptions(settings, outputs, args.max_output_chars, {
        caller,
        kernel: 'js',
      });
      try {
        await options.beforeJs();
        const result = await js.run(args.code, args.language, {
          context: ctx,
          caller: callerKeyOf(ctx),
          timeoutMs: args.timeout * 1000,
          elicit: approvalElicitor(ctx),
          askUser: userAskersOf(ctx),
          signal: ctx.mcpReq.signal,
          check: args.check === true,
        });
        return await cellResult(result, shown);
      } catch (error) {
        return await cellError(error, shown);
      }
    },
  );
}
