/**
 * The fixtures of the suite's `tasks-*` scenarios (the `io.modelcontextprotocol/tasks` extension,
 * SEP-2663): a sync-only `greet` and tools that opt in to tasks (`keepsRunning.tasks`) — a sleep
 * that honours cancellation, a tool error, a protocol error, one question, two questions at once,
 * a tool that runs only as a task, and one that asks first and then goes on as a task
 * (`ctx.runAsTask`).
 */
import type { PluginServer, ToolContext } from '@mcpbox/framework';
import { MissingRequiredClientCapabilityError } from '@modelcontextprotocol/server';
import { z } from 'zod';

/** Waits `ms`, or less if the task is cancelled (the handler's signal). */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

function confirmation(ctx: ToolContext, message: string, key?: string) {
  return ctx.elicit(
    {
      mode: 'form',
      message,
      requestedSchema: {
        type: 'object',
        properties: { confirm: { type: 'boolean' }, name: { type: 'string' } },
      },
    },
    { key },
  );
}

export function registerTasks(server: PluginServer): void {
  server.registerTool(
    'greet',
    { description: 'Sync only: says hello.', inputSchema: { name: z.string() } },
    ({ name }) => `Hello, ${name}!`,
  );

  server.registerTool(
    'slow_compute',
    {
      description: 'A task: sleeps `seconds`, then answers; cancellable.',
      inputSchema: { seconds: z.number().min(0), label: z.string().optional() },
      keepsRunning: { tasks: true },
    },
    async ({ seconds, label }, ctx) => {
      await sleep(seconds * 1000, ctx.mcpReq.signal);
      return `computed ${label ?? ''} after ${seconds} s`;
    },
  );

  server.registerTool(
    'failing_job',
    {
      description: 'A task only (taskSupport required): ends with a tool execution error.',
      keepsRunning: { tasks: 'required' },
    },
    async (ctx) => {
      await sleep(1000, ctx.mcpReq.signal);
      return { content: [{ type: 'text', text: 'the job failed' }], isError: true };
    },
  );

  server.registerTool(
    'protocol_error_job',
    {
      description: 'A task that fails at the protocol level (a JSON-RPC error, not a tool error).',
      keepsRunning: { tasks: true },
    },
    async () => {
      // One of the protocol errors a handler may raise as such (the others become tool errors).
      throw new MissingRequiredClientCapabilityError(
        { requiredCapabilities: {} },
        'protocol_error_job always fails at the protocol level',
      );
    },
  );

  server.registerTool(
    'confirm_delete',
    {
      description: 'A task: asks for confirmation, then "deletes" the file.',
      inputSchema: { filename: z.string() },
      keepsRunning: { tasks: true },
    },
    async ({ filename }, ctx) => {
      const answer = await confirmation(ctx, `Delete ${filename}?`, 'confirm');
      const confirmed = answer.action === 'accept' && answer.content?.confirm === true;
      return confirmed ? `Deleted ${filename}` : `Kept ${filename}`;
    },
  );

  server.registerTool(
    'test_tool_with_task',
    {
      description:
        'Asks for a name (input_required rounds), then goes on as a task that greets it.',
    },
    async (ctx) => {
      const answer = await ctx.elicit(
        {
          mode: 'form',
          message: 'Your name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
        },
        { key: 'user_name' },
      );
      const name = String(answer.content?.name ?? answer.action);
      return ctx.runAsTask(async () => `Hello, ${name}, from the task!`);
    },
  );

  server.registerTool(
    'multi_input',
    {
      description: 'A task: asks two questions at once.',
      keepsRunning: { tasks: true },
    },
    async (ctx) => {
      const [first, second] = await Promise.all([
        confirmation(ctx, 'First?', 'first'),
        confirmation(ctx, 'Second?', 'second'),
      ]);
      return `${first.content?.name ?? first.action} and ${second.content?.name ?? second.action}`;
    },
  );
}
