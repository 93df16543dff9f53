// Test plugin that uses every part of the plugin API, for session and transport tests.
import { completable, ResourceTemplate } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { PluginServer } from '../../contract/plugin.ts';

const COLOURS = ['red', 'green', 'blue', 'black'];

/** How many `wait_for_abort` calls saw their abort signal fire (read by tests). */
export const observed = { aborted: 0 };

export function register(server: PluginServer): void {
  registerPlainTools(server);
  registerClientTools(server);
  registerResourcesAndPrompt(server);
}

/** Tools that answer at once, without talking back to the client. */
function registerPlainTools(server: PluginServer): void {
  server.registerTool(
    'echo',
    { description: 'Echo a message', inputSchema: { message: z.string() } },
    ({ message }) => message,
  );
  server.registerTool(
    'add',
    {
      description: 'Add two numbers, with structured output',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      outputSchema: { sum: z.number() },
    },
    ({ a, b }) => ({
      content: [{ type: 'text', text: String(a + b) }],
      structuredContent: { sum: a + b },
    }),
  );
  server.registerTool(
    'json_schema_tool',
    {
      description: 'Declared with raw JSON Schema (2020-12)',
      inputSchema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: {
          pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }] },
        },
        required: ['pair'],
        additionalProperties: false,
      },
    },
    (args) => `pair=${JSON.stringify(args.pair)}`,
  );
  server.registerTool('fail', { description: 'Always throws' }, () => {
    throw new Error('the disk is on fire');
  });
  server.registerTool('whoami', { description: 'The session id of the caller' }, async (ctx) => {
    // Yield so that concurrent calls interleave.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
    return ctx.sessionId ?? 'no-session';
  });
}

/** Tools that talk to the client mid-call: progress, logs, sampling, elicitation, abort. */
function registerClientTools(server: PluginServer): void {
  server.registerTool(
    'count',
    {
      description: 'Reports progress to N',
      inputSchema: { to: z.number().int().min(1).max(20), roundTrip: z.boolean().default(true) },
    },
    async ({ to, roundTrip }, ctx) => {
      for (let i = 1; i <= to; i++) {
        await ctx.reportProgress(i, to, `step ${i}`);
        // A round trip to the client after each step. The SDK client handles notifications a
        // microtask late: progress that shares a read chunk with the response (likely over
        // stdio and SSE when nothing happens between steps) reaches a request already settled
        // and is dropped. Real work between steps spaces them out the same way.
        // (Stateless HTTP cannot carry server-to-client requests: `roundTrip: false` there.)
        if (roundTrip) await ctx.sendRequest({ method: 'ping' });
      }
      return `counted to ${to}`;
    },
  );
  server.registerTool(
    'shout_log',
    { description: 'Logs at two levels', inputSchema: {} },
    async (_args, ctx) => {
      await ctx.log('debug', 'quiet detail');
      await ctx.log('error', 'loud problem');
      return 'logged';
    },
  );
  server.registerTool(
    'ask_model',
    { description: 'Asks the client model', inputSchema: { question: z.string() } },
    async ({ question }, ctx) => {
      const answer = await ctx.sample({
        messages: [{ role: 'user', content: { type: 'text', text: question } }],
        maxTokens: 50,
      });
      return `model said: ${answer.content.type === 'text' ? answer.content.text : '?'}`;
    },
  );
  server.registerTool('ask_user', { description: 'Asks the user for a name' }, async (ctx) => {
    const reply = await ctx.elicit({
      message: 'What is your name?',
      requestedSchema: {
        type: 'object',
        properties: { name: { type: 'string' } },
        required: ['name'],
      },
    });
    return reply.action === 'accept'
      ? `hello ${reply.content?.name}`
      : `user chose ${reply.action}`;
  });
  server.registerTool(
    'wait_for_abort',
    { description: 'Waits until cancelled' },
    (ctx) =>
      new Promise<string>((resolve) => {
        ctx.signal.addEventListener('abort', () => {
          observed.aborted += 1;
          resolve('aborted');
        });
      }),
  );
}

function registerResourcesAndPrompt(server: PluginServer): void {
  server.registerResource(
    'readme',
    'kitchen://readme',
    { mimeType: 'text/plain', description: 'A static resource' },
    () => 'kitchen readme',
  );
  server.registerResource(
    'colour',
    new ResourceTemplate('kitchen://colours/{name}', {
      list: () => ({ resources: [{ uri: 'kitchen://colours/red', name: 'red' }] }),
      complete: { name: (value) => COLOURS.filter((c) => c.startsWith(value)) },
    }),
    { mimeType: 'text/plain' },
    (uri, { name }) => ({ contents: [{ uri: uri.href, text: `colour ${name}` }] }),
  );
  server.registerPrompt(
    'paint',
    {
      description: 'Paint something',
      argsSchema: {
        colour: completable(z.string().describe('Which colour'), (value) =>
          COLOURS.filter((c) => c.startsWith(value)),
        ),
        thing: z.string().optional(),
      },
    },
    ({ colour, thing }) => `Paint the ${thing ?? 'wall'} ${colour}`,
  );
}
