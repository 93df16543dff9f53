/**
 * The `input-required-result-*` fixtures (MCP 2026-07-28, multi round-trip requests, SEP-2322):
 * tools and a prompt that ask the client for input with `ctx.elicit`, `ctx.sample` and
 * `ctx.listRoots`.
 *
 * They are ordinary handlers and serve both eras: a 2026-07-28 client gets `input_required`
 * with the questions and retries the call with the answers (the framework re-runs the handler
 * and replays earlier answers from the sealed `requestState`); a 2025 client gets real
 * `elicitation/create`, `sampling/createMessage` and `roots/list` requests. The `key` option
 * names a question in the 2026 `inputRequests` map where a scenario expects a particular name.
 *
 * @module
 */
import type { PluginServer, ToolContext } from '@mcpbox/framework';

/** A one-field form: `{ [field]: type }`, the field required. */
function form<T extends 'string' | 'boolean'>(field: string, type: T) {
  return {
    type: 'object' as const,
    properties: { [field]: { type } } as Record<string, { type: T }>,
    required: [field],
  };
}

function textOf(result: { content: { type: string; text?: string } }): string {
  return result.content.type === 'text' ? (result.content.text ?? '') : '[non-text content]';
}

/** What the user typed into a one-field form, or why there is nothing. */
function fieldOf(
  answer: { action: string; content?: Record<string, unknown> },
  field: string,
): string {
  if (answer.action !== 'accept') return `(${answer.action})`;
  return String(answer.content?.[field] ?? '');
}

async function askName(ctx: ToolContext, message: string, key: string): Promise<string> {
  const answer = await ctx.elicit({ message, requestedSchema: form('name', 'string') }, { key });
  return fieldOf(answer, 'name');
}

async function confirm(ctx: ToolContext): Promise<boolean> {
  const answer = await ctx.elicit(
    { message: 'Please confirm', requestedSchema: form('ok', 'boolean') },
    { key: 'confirm' },
  );
  return answer.action === 'accept' && answer.content?.ok === true;
}

export function registerInputRequired(server: PluginServer): void {
  registerOneQuestion(server);
  registerRequestState(server);
  registerSeveralQuestions(server);
  registerInputRequiredPrompt(server);
}

/** Tools that ask one question of each kind: elicitation, sampling, roots. */
function registerOneQuestion(server: PluginServer): void {
  // Also serves -missing-input-response (a retry without the answer is asked again),
  // -result-type, -ignore-extra-params and -validate-input.
  server.registerTool(
    'test_input_required_result_elicitation',
    { description: 'Asks the user for their name (key user_name), then greets them.' },
    async (ctx: ToolContext) => `Hello, ${await askName(ctx, 'What is your name?', 'user_name')}!`,
  );

  server.registerTool(
    'test_input_required_result_sampling',
    { description: "Asks the client's model for the capital of France (key capital_question)." },
    async (ctx: ToolContext) => {
      const answer = await ctx.sample(
        {
          messages: [
            { role: 'user', content: { type: 'text', text: 'What is the capital of France?' } },
          ],
          maxTokens: 100,
        },
        { key: 'capital_question' },
      );
      return `The model answered: ${textOf(answer)}`;
    },
  );

  server.registerTool(
    'test_input_required_result_list_roots',
    { description: "Lists the client's roots (key client_roots)." },
    async (ctx: ToolContext) => {
      const { roots } = await ctx.listRoots({ key: 'client_roots' });
      return `The client has ${roots.length} root(s): ${roots.map((r) => r.uri).join(', ')}`;
    },
  );
}

/** Tools whose retry carries the sealed `requestState` back: verified, or refused when altered. */
function registerRequestState(server: PluginServer): void {
  server.registerTool(
    'test_input_required_result_request_state',
    {
      description:
        'Asks for a confirmation; the answer comes back with the sealed requestState, which the server verifies.',
    },
    // Reaching the end means the framework verified the echoed state (a bad one is -32602).
    async (ctx: ToolContext) => `state-ok: confirmed=${await confirm(ctx)}`,
  );

  server.registerTool(
    'test_input_required_result_tampered_state',
    {
      description:
        'Asks for a confirmation; a retry whose requestState was altered is rejected (-32602).',
    },
    async (ctx: ToolContext) => `Confirmed: ${await confirm(ctx)}`,
  );
}

/** Tools that ask more than one question: together, in rounds, or as capabilities allow. */
function registerSeveralQuestions(server: PluginServer): void {
  server.registerTool(
    'test_input_required_result_multiple_inputs',
    {
      description:
        "Asks for a name, a greeting from the client's model and the client's roots, all in one round.",
    },
    async (ctx: ToolContext) => {
      // Asked together, the three questions reach a 2026 client in one input_required.
      const [name, greeting, { roots }] = await Promise.all([
        askName(ctx, 'What is your name?', 'user_name'),
        ctx.sample(
          {
            messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }],
            maxTokens: 50,
          },
          { key: 'greeting' },
        ),
        ctx.listRoots({ key: 'client_roots' }),
      ]);
      return `${textOf(greeting)} ${name} (${roots.length} root(s))`;
    },
  );

  server.registerTool(
    'test_input_required_result_multi_round',
    { description: 'Asks for a name, then (a second round) for a favourite colour.' },
    async (ctx: ToolContext) => {
      const name = await askName(ctx, 'Step 1: What is your name?', 'step1');
      const color = await ctx.elicit(
        {
          message: 'Step 2: What is your favorite color?',
          requestedSchema: form('color', 'string'),
        },
        { key: 'step2' },
      );
      return `${name} likes ${fieldOf(color, 'color')}`;
    },
  );

  server.registerTool(
    'test_input_required_result_capabilities',
    {
      description:
        'Asks for a name and a model answer, each only if the client declared the capability for it.',
    },
    async (ctx: ToolContext) => {
      // A question the client cannot answer fails on its own (its capability is missing) and is
      // left out; the others still go out.
      const [name, sampled] = await Promise.allSettled([
        askName(ctx, 'What is your name?', 'user_name'),
        ctx.sample(
          {
            messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }],
            maxTokens: 50,
          },
          { key: 'hello' },
        ),
      ]);
      const parts = [
        name.status === 'fulfilled' ? `name: ${name.value}` : 'no elicitation',
        sampled.status === 'fulfilled' ? `model: ${textOf(sampled.value)}` : 'no sampling',
      ];
      return parts.join('; ');
    },
  );
}

function registerInputRequiredPrompt(server: PluginServer): void {
  server.registerPrompt(
    'test_input_required_result_prompt',
    { description: 'A prompt that asks the user for its context first.' },
    async (ctx) => {
      const answer = await ctx.elicit(
        {
          message: 'What context should the prompt use?',
          requestedSchema: form('context', 'string'),
        },
        { key: 'user_context' },
      );
      return `Answer with this context in mind: ${fieldOf(answer, 'context')}`;
    },
  );
}
