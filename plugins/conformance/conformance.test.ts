// The conformance plugin served over real Streamable HTTP by the framework, driven by the SDK's
// Client: what the official suite checks, asserted here too so `npm test` catches a regression
// without network access (scripts/conformance.mjs runs the suite itself).
import assert from 'node:assert/strict';
import { dirname } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createServer, type McpboxServer } from '@mcpbox/framework';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  type ElicitResult,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { DEFAULTS_SCHEMA, ENUMS_SCHEMA, USER_SCHEMA } from './elicitation.ts';
import { WATCHED_URI } from './resources.ts';
import { JSON_SCHEMA_2020_12 } from './tools.ts';

const PLUGINS = dirname(dirname(fileURLToPath(import.meta.url)));
const textOf = (r: unknown) => (r as { content: { text: string }[] }).content[0].text;

let server: McpboxServer;
let url: string;

before(async () => {
  server = createServer({ name: 'conformance-test', transport: 'http', pluginDirs: [PLUGINS] });
  const loaded = await server.registry.loadPlugin('conformance');
  assert.ok(loaded.ok, loaded.ok ? '' : loaded.error);
  url = (await server.start()) ?? '';
});
after(() => server.close());

/** A client like the suite's: sampling and elicitation capabilities, answering with `answer`. */
async function connect(t: { after(fn: () => unknown): void }, answer?: ElicitResult) {
  const client = new Client(
    { name: 'conformance-test-client', version: '1.0.0' },
    { capabilities: { sampling: {}, elicitation: {} } },
  );
  const asked: { sampling: unknown[]; elicitation: unknown[] } = { sampling: [], elicitation: [] };
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    asked.sampling.push(request.params);
    return {
      role: 'assistant',
      model: 'test-model',
      content: { type: 'text', text: 'a sampled answer' },
    };
  });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.elicitation.push(request.params);
    return answer ?? { action: 'decline' };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  t.after(() => client.close());
  return { client, asked };
}

test('every tool and prompt has a description; the 2020-12 schema is listed unchanged', async (t) => {
  const { client } = await connect(t);
  const { tools } = await client.listTools();
  for (const tool of tools) assert.ok(tool.description, `${tool.name} has no description`);
  const schemaTool = tools.find((tool) => tool.name === 'json_schema_2020_12_tool');
  assert.deepEqual(schemaTool?.inputSchema, JSON_SCHEMA_2020_12);
  const { prompts } = await client.listPrompts();
  assert.equal(prompts.length, 4);
  for (const prompt of prompts) assert.ok(prompt.description, `${prompt.name} has no description`);
});

test('content tools return the content types the scenarios expect', async (t) => {
  const { client } = await connect(t);
  const image = await client.callTool({ name: 'test_image_content', arguments: {} });
  assert.deepEqual(
    (image.content as { type: string; mimeType: string }[]).map((c) => [c.type, c.mimeType]),
    [['image', 'image/png']],
  );
  const audio = await client.callTool({ name: 'test_audio_content', arguments: {} });
  const clip = (audio.content as { data: string; mimeType: string }[])[0];
  assert.equal(clip.mimeType, 'audio/wav');
  assert.equal(Buffer.from(clip.data, 'base64').subarray(0, 4).toString(), 'RIFF');
  const mixed = await client.callTool({ name: 'test_multiple_content_types', arguments: {} });
  assert.deepEqual(
    (mixed.content as { type: string }[]).map((c) => c.type),
    ['text', 'image', 'resource'],
  );
  const failed = await client.callTool({ name: 'test_error_handling', arguments: {} });
  assert.equal(failed.isError, true);
  assert.match(textOf(failed), /intentionally returns an error/);
});

test('logging and progress arrive during the call, in order', async (t) => {
  const { client } = await connect(t);
  await client.setLoggingLevel('debug');
  const logs: unknown[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    logs.push(n.params.data);
  });
  await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
  assert.deepEqual(logs, [
    'Tool execution started',
    'Tool processing data',
    'Tool execution completed',
  ]);
  const progress: number[] = [];
  await client.callTool({ name: 'test_tool_with_progress', arguments: {} }, undefined, {
    onprogress: (p) => progress.push(p.progress),
  });
  assert.deepEqual(progress, [0, 50, 100]);
});

test('sampling and elicitation go to the calling client and their answers come back', async (t) => {
  const { client, asked } = await connect(t, {
    action: 'accept',
    content: { username: 'ada', email: 'ada@example.org' },
  });
  const sampled = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'hi?' } });
  assert.equal(textOf(sampled), 'LLM response: a sampled answer');
  assert.deepEqual(asked.sampling, [
    { messages: [{ role: 'user', content: { type: 'text', text: 'hi?' } }], maxTokens: 100 },
  ]);
  const elicited = await client.callTool({
    name: 'test_elicitation',
    arguments: { message: 'Who are you?' },
  });
  assert.equal(
    textOf(elicited),
    'User response: action=accept, content={"username":"ada","email":"ada@example.org"}',
  );
  await client.callTool({ name: 'test_elicitation_sep1034_defaults', arguments: {} });
  await client.callTool({ name: 'test_elicitation_sep1330_enums', arguments: {} });
  const schemas = asked.elicitation.map((p) => (p as { requestedSchema: unknown }).requestedSchema);
  assert.deepEqual(schemas, [USER_SCHEMA, DEFAULTS_SCHEMA, ENUMS_SCHEMA]);
});

test('resources, the template, completion and prompts', async (t) => {
  const { client } = await connect(t);
  const binary = await client.readResource({ uri: 'test://static-binary' });
  assert.equal((binary.contents[0] as { mimeType: string }).mimeType, 'image/png');
  const data = await client.readResource({ uri: 'test://template/123/data' });
  assert.deepEqual(JSON.parse((data.contents[0] as { text: string }).text), {
    id: '123',
    templateTest: true,
    data: 'Data for ID: 123',
  });
  const completion = await client.complete({
    ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
    argument: { name: 'arg1', value: 'par' },
  });
  assert.deepEqual(completion.completion.values, ['paris', 'park', 'party']);
  const prompt = await client.getPrompt({
    name: 'test_prompt_with_arguments',
    arguments: { arg1: 'hello', arg2: 'world' },
  });
  assert.deepEqual(prompt.messages, [
    {
      role: 'user',
      content: { type: 'text', text: "Prompt with arguments: arg1='hello', arg2='world'" },
    },
  ]);
});

test('a subscribed client hears about changes to the watched resource', async (t) => {
  const { client } = await connect(t);
  const updated = new Promise<string>((resolve) => {
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => resolve(n.params.uri));
  });
  assert.deepEqual(await client.subscribeResource({ uri: WATCHED_URI }), {});
  const touched = await client.callTool({ name: 'test_touch_watched_resource', arguments: {} });
  assert.match(textOf(touched), /version \d+$/);
  assert.equal(await updated, WATCHED_URI);
  const read = await client.readResource({ uri: WATCHED_URI });
  assert.equal(
    (read.contents[0] as { text: string }).text,
    textOf(touched).replace(/^.* is now at /, 'Watched resource, '),
  );
  assert.deepEqual(await client.unsubscribeResource({ uri: WATCHED_URI }), {});
});

test('test_reconnection closes its stream mid-call; the client resumes and gets the result', async (t) => {
  const { client } = await connect(t);
  const result = await client.callTool({ name: 'test_reconnection', arguments: {} });
  assert.equal(textOf(result), 'Reconnection test completed successfully');
});
