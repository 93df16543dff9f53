/**
 * The `test_*` tools of the conformance fixture, one per tools-call scenario, plus
 * `json_schema_2020_12_tool` (raw JSON Schema passed through unchanged) and `test_reconnection`
 * (closes its SSE stream mid-call so the client must resume with `Last-Event-ID`). The 2026-only
 * fixtures are in inputRequired.ts and stateless.ts.
 *
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { PluginServer, ToolContext } from '@mcpbox/framework';
import { z } from 'zod';
import { DEFAULTS_SCHEMA, ENUMS_SCHEMA, USER_SCHEMA } from './elicitation.ts';
import { RED_PIXEL_PNG, silentWav } from './media.ts';

/** The pause between the notifications of the logging and progress tools. */
const STEP_MS = 50;

/**
 * json-schema-2020-12 (SEP-1613, and SEP-2106's wider vocabulary: `$anchor`, `allOf`/`anyOf`,
 * `if`/`then`/`else`): these keywords must reach the client as written.
 */
export const JSON_SCHEMA_2020_12 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      $anchor: 'addressDef',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
    },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword, not a thenable
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};

/** Three info log messages, a step apart (logging/setLevel in 2025, `_meta` logLevel in 2026). */
async function logThreeMessages(ctx: ToolContext): Promise<string> {
  await ctx.log('info', 'Tool execution started');
  await sleep(STEP_MS);
  await ctx.log('info', 'Tool processing data');
  await sleep(STEP_MS);
  await ctx.log('info', 'Tool execution completed');
  return 'Tool with logging executed successfully';
}

export function registerTools(server: PluginServer): void {
  registerContentTools(server);
  registerNotifyingTools(server);
  registerClientRequestTools(server);
  registerSchemaAndStreamTools(server);
}

/** One tool per content type a result can carry: text, image, audio, embedded resource, mixed. */
function registerContentTools(server: PluginServer): void {
  server.registerTool(
    'test_simple_text',
    { description: 'Returns a simple text response.' },
    () => 'This is a simple text response for testing.',
  );

  server.registerTool('test_image_content', { description: 'Returns a 1x1 PNG image.' }, () => ({
    content: [{ type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' }],
  }));

  server.registerTool(
    'test_audio_content',
    { description: 'Returns a short silent WAV clip.' },
    () => ({ content: [{ type: 'audio', data: silentWav(), mimeType: 'audio/wav' }] }),
  );

  server.registerTool(
    'test_embedded_resource',
    { description: 'Returns an embedded text resource.' },
    () => ({
      content: [
        {
          type: 'resource',
          resource: {
            uri: 'test://embedded-resource',
            mimeType: 'text/plain',
            text: 'This is an embedded resource content.',
          },
        },
      ],
    }),
  );

  server.registerTool(
    'test_multiple_content_types',
    { description: 'Returns text, an image and an embedded JSON resource, in that order.' },
    () => ({
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: {
            uri: 'test://mixed-content-resource',
            mimeType: 'application/json',
            text: JSON.stringify({ test: 'data', value: 123 }),
          },
        },
      ],
    }),
  );
}

/** Tools that send logs or progress while they run, and the one that always fails. */
function registerNotifyingTools(server: PluginServer): void {
  server.registerTool(
    'test_tool_with_logging',
    { description: 'Sends three info log messages while it runs.' },
    logThreeMessages,
  );

  // server-stateless (2026): a request without `_meta` logLevel must see none of these logs.
  server.registerTool(
    'test_logging_tool',
    { description: 'Sends three info log messages, if the request asked for log messages.' },
    logThreeMessages,
  );

  server.registerTool(
    'test_error_handling',
    { description: 'Always fails, to test error reporting.' },
    () => {
      throw new Error('This tool intentionally returns an error for testing');
    },
  );

  server.registerTool(
    'test_tool_with_progress',
    { description: 'Reports progress 0, 50 and 100 of 100 while it runs.' },
    async (ctx: ToolContext) => {
      await ctx.reportProgress(0, 100);
      await sleep(STEP_MS);
      await ctx.reportProgress(50, 100);
      await sleep(STEP_MS);
      await ctx.reportProgress(100, 100);
      return 'Tool with progress executed successfully';
    },
  );
}

/** Tools that ask the client mid-call: sampling and the elicitation forms. */
function registerClientRequestTools(server: PluginServer): void {
  server.registerTool(
    'test_sampling',
    {
      description: "Asks the client's model to answer a prompt (sampling/createMessage).",
      inputSchema: { prompt: z.string().describe('The prompt to send to the LLM') },
    },
    async ({ prompt }, ctx) => {
      const result = await ctx.sample({
        messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
        maxTokens: 100,
      });
      const answer = result.content.type === 'text' ? result.content.text : '[non-text content]';
      return `LLM response: ${answer}`;
    },
  );

  server.registerTool(
    'test_elicitation',
    {
      description: 'Asks the user for a username and an email (elicitation/create).',
      inputSchema: { message: z.string().describe('The message to show the user') },
    },
    async ({ message }, ctx) => {
      const result = await ctx.elicit({ message, requestedSchema: USER_SCHEMA });
      return `User response: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
    },
  );

  server.registerTool(
    'test_elicitation_sep1034_defaults',
    { description: 'Elicits fields that carry a default for every primitive type (SEP-1034).' },
    async (ctx: ToolContext) => {
      const result = await ctx.elicit({
        message: 'Please review and update the form fields with defaults',
        requestedSchema: DEFAULTS_SCHEMA,
      });
      return `Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
    },
  );

  server.registerTool(
    'test_elicitation_sep1330_enums',
    { description: 'Elicits the five enum shapes of SEP-1330.' },
    async (ctx: ToolContext) => {
      const result = await ctx.elicit({
        message: 'Please select options from the enum fields',
        requestedSchema: ENUMS_SCHEMA,
      });
      return `Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
    },
  );
}

/** Raw JSON Schema passed through, and a call that survives its SSE stream closing. */
function registerSchemaAndStreamTools(server: PluginServer): void {
  server.registerTool(
    'json_schema_2020_12_tool',
    {
      description: 'Tool with JSON Schema 2020-12 features',
      inputSchema: JSON_SCHEMA_2020_12,
    },
    (args) => `Received: ${JSON.stringify(args)}`,
  );

  server.registerTool(
    'test_reconnection',
    {
      description:
        'Closes its SSE stream mid-call; the result arrives after the client reconnects with Last-Event-ID.',
    },
    async (ctx: ToolContext) => {
      await sleep(STEP_MS);
      // Only Streamable HTTP with an event store offers this; elsewhere the call simply completes.
      ctx.closeSSEStream?.();
      await sleep(2 * STEP_MS);
      return 'Reconnection test completed successfully';
    },
  );
}
