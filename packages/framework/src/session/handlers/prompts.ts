/**
 * A session's `prompts/list` and `prompts/get`: a prompt's arguments are checked against its
 * schema, and its handler may ask the client as a tool can (`input_required` rounds).
 *
 * @module
 */
import {
  type GetPromptResult,
  ProtocolError,
  ProtocolErrorCode,
} from '@modelcontextprotocol/server';
import type { PromptReturn } from '../../contract/plugin.ts';
import type { SessionHost } from './host.ts';

function toPromptResult(value: PromptReturn): GetPromptResult {
  return typeof value === 'string'
    ? { messages: [{ role: 'user', content: { type: 'text', text: value } }] }
    : value;
}

export function registerPromptHandlers(host: SessionHost): void {
  const { server, catalog, access, counted, withRounds } = host;
  const inView = (view: string | undefined, name: string) => {
    const prompt = catalog.getPrompt(name);
    return (
      prompt !== undefined && access.selects(view, (v) => v.includesPrompt(name, prompt.plugin))
    );
  };

  server.setRequestHandler(
    'prompts/list',
    counted(async (_request, extra) => ({
      prompts: catalog.listPrompts().filter((p) => inView(extra.view, p.name)),
    })),
  );

  server.setRequestHandler(
    'prompts/get',
    counted(async (request, extra) => {
      const { name } = request.params;
      const prompt = inView(extra.view, name) ? catalog.getPrompt(name) : undefined;
      if (!prompt) {
        // A prompt the pin book holds back says so (to a caller whose view has it).
        const held = inView(extra.view, name) ? catalog.heldPrompt(name) : undefined;
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          held?.reason ?? `Prompt ${name} not found`,
        );
      }
      if (!prompt.enabled)
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Prompt ${name} disabled`);
      let args: Record<string, unknown> | undefined;
      if (prompt.args) {
        const checked = await prompt.args.validate(request.params.arguments ?? {});
        if (!checked.ok) {
          throw new ProtocolError(
            ProtocolErrorCode.InvalidParams,
            `Invalid arguments for prompt ${name}: ${checked.message}`,
          );
        }
        args = checked.value as Record<string, unknown>;
      }
      // Prompts may ask the client too (`input_required` is allowed on prompts/get).
      const asked = await withRounds(
        extra,
        { method: 'prompts/get', name, args: request.params.arguments },
        async (ctx) =>
          toPromptResult(await (args ? prompt.handler(args, ctx) : prompt.handler(ctx))),
      );
      if (!('result' in asked)) return asked.inputRequired as unknown as GetPromptResult;
      return asked.result;
    }),
  );
}
