/**
 * The diagnostic tools of the `server-stateless` scenario (MCP 2026-07-28, SEP-2575):
 *
 * - `test_missing_capability` needs sampling; a 2026 request that did not declare it is refused
 *   with -32021 (MissingRequiredClientCapability, HTTP 400) by the framework.
 * - `test_streaming_elicitation` streams progress and then asks a question: a 2026 response
 *   stream carries only notifications and the `input_required` result, never a request.
 * - `test_trigger_tool_change` and `test_trigger_prompt_change` show or hide a tool or prompt,
 *   so `subscriptions/listen` streams (and 2025 sessions) hear `list_changed`.
 *
 * (`test_logging_tool`, the scenario's no-log-without-logLevel probe, is in tools.ts.) Plus
 * `test_custom_header_param` for the custom-header scenario (`x-mcp-header`).
 *
 * @module
 */
import type {
  PluginServer,
  RegisteredPrompt,
  RegisteredTool,
  ToolContext,
} from '@mcpbox/framework';

/** A tool that shows or hides `handle` (hidden at first), so clients hear `<kind>/list_changed`. */
function registerToggle(
  server: PluginServer,
  trigger: string,
  handle: RegisteredTool | RegisteredPrompt,
  kind: 'tools' | 'prompts',
): void {
  handle.disable();
  server.registerTool(
    trigger,
    { description: `Shows or hides ${handle.name}, so clients hear ${kind}/list_changed.` },
    () => {
      handle.update({ enabled: !handle.enabled });
      return `${handle.name} is now ${handle.enabled ? 'listed' : 'hidden'}`;
    },
  );
}

export function registerStatelessDiagnostics(server: PluginServer): void {
  server.registerTool(
    'test_missing_capability',
    { description: "Needs the client's sampling capability: asks its model for a word." },
    async (ctx: ToolContext) => {
      const answer = await ctx.sample({
        messages: [{ role: 'user', content: { type: 'text', text: 'Say one word.' } }],
        maxTokens: 10,
      });
      return answer.content.type === 'text' ? answer.content.text : '[non-text content]';
    },
  );

  server.registerTool(
    'test_streaming_elicitation',
    { description: 'Reports progress, then asks the user to confirm before finishing.' },
    async (ctx: ToolContext) => {
      await ctx.reportProgress(0, 2, 'starting');
      const answer = await ctx.elicit({
        message: 'Continue?',
        requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
      });
      await ctx.reportProgress(2, 2, 'done');
      return `Finished (${answer.action})`;
    },
  );

  // http-custom-header-server-validation (SEP-2243): a 2026 client mirrors `region` into an
  // `Mcp-Param-Region` header; the server refuses a call whose header is missing or differs.
  server.registerTool(
    'test_custom_header_param',
    {
      description: 'Runs a query in a region; the region travels in the Mcp-Param-Region header.',
      inputSchema: {
        type: 'object',
        properties: {
          region: { type: 'string', 'x-mcp-header': 'Region' },
          query: { type: 'string' },
        },
        required: ['region'],
      },
    },
    (args) => `Ran ${JSON.stringify(args.query ?? '')} in ${String(args.region)}`,
  );

  const dynamicTool = server.registerTool(
    'test_dynamic_tool',
    { description: 'Listed only while test_trigger_tool_change has it shown.' },
    () => 'The dynamic tool is here.',
  );
  const dynamicPrompt = server.registerPrompt(
    'test_dynamic_prompt',
    { description: 'Listed only while test_trigger_prompt_change has it shown.' },
    () => 'The dynamic prompt is here.',
  );
  registerToggle(server, 'test_trigger_tool_change', dynamicTool, 'tools');
  registerToggle(server, 'test_trigger_prompt_change', dynamicPrompt, 'prompts');
}
