// The conformance plugin served over real Streamable HTTP by the framework, driven by real SDK v2
// clients in both protocol eras: what the official suite checks, asserted here too so `npm test`
// catches a regression without network access (scripts/conformance.mjs runs the suite itself,
// `--requirements 2025-11-25` and `--requirements 2026-07-28`, against mcp-factory and mcp-proxy).
import assert from 'node:assert/strict';
import { dirname } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  createServer,
  ERAS,
  type Era,
  FIRST_MODERN_VERSION,
  type McpboxServer,
  versionOfEra,
} from '@mcpbox/framework';
import type { ClientCapabilities, ElicitResult } from '@modelcontextprotocol/client';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { DEFAULTS_SCHEMA, ENUMS_SCHEMA, USER_SCHEMA } from './elicitation.ts';
import { WATCHED_URI } from './resources.ts';
import { JSON_SCHEMA_2020_12 } from './tools.ts';

const PLUGINS = dirname(dirname(fileURLToPath(import.meta.url)));
const textOf = (r: unknown) => (r as { content: { text: string }[] }).content[0].text;

type After = { after(fn: () => unknown): void };

let server: McpboxServer;
let url: string;

before(async () => {
  server = createServer({ name: 'conformance-test', transport: 'http', pluginDirs: [PLUGINS] });
  const loaded = await server.registry.loadPlugin('conformance');
  assert.ok(loaded.ok, loaded.ok ? '' : loaded.error);
  url = (await server.start()) ?? '';
});
after(() => server.close());

/**
 * A client like the suite's: sampling, elicitation and roots capabilities, answering elicitations
 * with `answer` (or a name, for the one-field forms of the input-required fixtures). `legacy` is
 * a 2025 session (server→client requests); `modern` is pinned to 2026-07-28 (the client answers
 * `input_required` and retries on its own).
 */
async function connect(t: After, answer?: ElicitResult, era: Era = 'legacy') {
  const client = new Client(
    { name: 'conformance-test-client', version: '1.0.0' },
    {
      capabilities: { sampling: {}, elicitation: {}, roots: {} },
      versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: versionOfEra(era) } },
    },
  );
  const asked: { sampling: unknown[]; elicitation: unknown[]; roots: number } = {
    sampling: [],
    elicitation: [],
    roots: 0,
  };
  client.setRequestHandler('sampling/createMessage', async (request) => {
    asked.sampling.push(request.params);
    return {
      role: 'assistant',
      model: 'test-model',
      content: { type: 'text', text: 'a sampled answer' },
    };
  });
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.elicitation.push(request.params);
    if (answer) return answer;
    // The input-required fixtures ask one-field forms: fill the field.
    const schema = (request.params as { requestedSchema?: { properties?: object } })
      .requestedSchema;
    const field = Object.keys(schema?.properties ?? {})[0];
    if (field === 'ok') return { action: 'accept', content: { ok: true } };
    return field
      ? { action: 'accept', content: { [field]: `my ${field}` } }
      : { action: 'decline' };
  });
  client.setRequestHandler('roots/list', async () => {
    asked.roots += 1;
    return { roots: [{ uri: 'file:///test/root', name: 'Test Root' }] };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  t.after(() => client.close());
  assert.equal(client.getProtocolEra(), era);
  return { client, asked };
}

for (const era of ERAS) {
  test(`${era}: every tool and prompt has a description; the 2020-12 schema is listed unchanged`, async (t) => {
    const { client } = await connect(t, undefined, era);
    const { tools } = await client.listTools();
    for (const tool of tools) assert.ok(tool.description, `${tool.name} has no description`);
    const schemaTool = tools.find((tool) => tool.name === 'json_schema_2020_12_tool');
    assert.deepEqual(schemaTool?.inputSchema, JSON_SCHEMA_2020_12);
    const { prompts } = await client.listPrompts();
    assert.equal(prompts.length, 5);
    for (const prompt of prompts)
      assert.ok(prompt.description, `${prompt.name} has no description`);
  });

  test(`${era}: content tools return the content types the scenarios expect`, async (t) => {
    const { client } = await connect(t, undefined, era);
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

  test(`${era}: logging and progress arrive during the call, in order`, async (t) => {
    const { client } = await connect(t, undefined, era);
    const logs: unknown[] = [];
    client.setNotificationHandler('notifications/message', (n) => {
      logs.push(n.params.data);
    });
    const expected = ['Tool execution started', 'Tool processing data', 'Tool execution completed'];
    if (era === 'legacy') {
      await client.setLoggingLevel('debug');
      await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
    } else {
      // 2026: no log notifications unless the request's `_meta` asks for a level.
      await client.callTool({ name: 'test_logging_tool', arguments: {} });
      assert.deepEqual(logs, []);
      await client.callTool({
        name: 'test_tool_with_logging',
        arguments: {},
        _meta: { 'io.modelcontextprotocol/logLevel': 'debug' },
      });
    }
    assert.deepEqual(logs, expected);
    const progress: number[] = [];
    await client.callTool(
      { name: 'test_tool_with_progress', arguments: {} },
      {
        onprogress: (p) => progress.push(p.progress),
      },
    );
    assert.deepEqual(progress, [0, 50, 100]);
  });

  test(`${era}: sampling and elicitation go to the calling client and their answers come back`, async (t) => {
    const { client, asked } = await connect(
      t,
      { action: 'accept', content: { username: 'ada', email: 'ada@example.org' } },
      era,
    );
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
    const schemas = asked.elicitation.map(
      (p) => (p as { requestedSchema: unknown }).requestedSchema,
    );
    assert.deepEqual(schemas, [USER_SCHEMA, DEFAULTS_SCHEMA, ENUMS_SCHEMA]);
  });

  test(`${era}: resources, the template, completion and prompts`, async (t) => {
    const { client } = await connect(t, undefined, era);
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
}

test('a subscribed client hears about changes to the watched resource', async (t) => {
  const { client } = await connect(t);
  const updated = new Promise<string>((resolve) => {
    client.setNotificationHandler('notifications/resources/updated', (n) => resolve(n.params.uri));
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

for (const era of ERAS) {
  test(`${era}: the input-required fixtures ask with ctx.elicit/ctx.sample/ctx.listRoots and finish`, async (t) => {
    const { client, asked } = await connect(t, undefined, era);
    const call = async (name: string) => textOf(await client.callTool({ name, arguments: {} }));
    assert.equal(await call('test_input_required_result_elicitation'), 'Hello, my name!');
    assert.equal(
      await call('test_input_required_result_sampling'),
      'The model answered: a sampled answer',
    );
    assert.equal(
      await call('test_input_required_result_list_roots'),
      'The client has 1 root(s): file:///test/root',
    );
    assert.equal(
      await call('test_input_required_result_request_state'),
      'state-ok: confirmed=true',
    );
    assert.equal(await call('test_input_required_result_multi_round'), 'my name likes my color');
    assert.deepEqual([asked.elicitation.length, asked.sampling.length, asked.roots], [4, 1, 1]);
    assert.equal(
      await call('test_input_required_result_multiple_inputs'),
      'a sampled answer my name (1 root(s))',
    );
    assert.deepEqual([asked.elicitation.length, asked.sampling.length, asked.roots], [5, 2, 2]);
    assert.equal(
      await call('test_input_required_result_capabilities'),
      'name: my name; model: a sampled answer',
    );
    const prompt = await client.getPrompt({ name: 'test_input_required_result_prompt' });
    assert.deepEqual(prompt.messages[0].content, {
      type: 'text',
      text: 'Answer with this context in mind: my context',
    });
  });

  test(`${era}: test_custom_header_param runs (a 2026 client mirrors region into Mcp-Param-Region)`, async (t) => {
    const { client } = await connect(t, undefined, era);
    const result = await client.callTool({
      name: 'test_custom_header_param',
      arguments: { region: 'Hello, 世界', query: 'q' },
    });
    assert.equal(textOf(result), 'Ran "q" in Hello, 世界');
  });

  test(`${era}: test_trigger_tool_change reaches a listening client as tools/list_changed`, async (t) => {
    let heard: (names: string[]) => void = () => undefined;
    const changed = new Promise<string[]>((resolve) => (heard = resolve));
    const client = new Client(
      { name: `listener-${era}`, version: '1.0.0' },
      {
        versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: versionOfEra(era) } },
        listChanged: {
          tools: {
            debounceMs: 0,
            onChanged: (_error, tools) => heard((tools ?? []).map((x) => x.name)),
          },
        },
      },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    t.after(() => client.close());
    // Give a 2026 client's subscriptions/listen stream a moment to be acknowledged.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await client.callTool({ name: 'test_trigger_tool_change', arguments: {} });
    assert.ok((await changed).includes('test_dynamic_tool'));
    // Hide it again: the other tests count the listings.
    await client.callTool({ name: 'test_trigger_tool_change', arguments: {} });
  });
}

/** A raw 2026-07-28 POST, as the suite sends it: the headers and the `_meta` envelope. */
async function post2026(
  method: string,
  params: Record<string, unknown>,
  capabilities: ClientCapabilities = { sampling: {}, elicitation: {}, roots: {} },
) {
  const name = params.name ?? params.uri;
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': FIRST_MODERN_VERSION,
      'mcp-method': method,
      ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': FIRST_MODERN_VERSION,
          'io.modelcontextprotocol/clientCapabilities': capabilities,
        },
      },
    }),
  });
  const body = await response.text();
  // A JSON body, or the last `data:` line of an SSE stream (the response comes last).
  const json = body.startsWith('{')
    ? body
    : body
        .match(/^data: .*$/gm)
        ?.at(-1)
        ?.slice(6);
  type Answer = {
    resultType?: string;
    requestState?: string;
    inputRequests?: Record<string, { method: string }>;
    content?: { text: string }[];
  };
  const parsed = JSON.parse(json ?? '{}') as {
    result?: Answer;
    error?: { code: number; message: string; data?: Record<string, unknown> };
  };
  return { status: response.status, ...parsed };
}

const methodsOf = (result?: { inputRequests?: Record<string, { method: string }> }) =>
  Object.fromEntries(Object.entries(result?.inputRequests ?? {}).map(([k, v]) => [k, v.method]));

test('modern wire: input_required rounds, keys, sealed state and refusals as the suite checks them', async () => {
  const call = (name: string, extra: Record<string, unknown> = {}, caps?: ClientCapabilities) =>
    post2026('tools/call', { name, arguments: {}, ...extra }, caps);

  const first = await call('test_input_required_result_elicitation');
  assert.equal(first.result?.resultType, 'input_required');
  assert.deepEqual(methodsOf(first.result), { user_name: 'elicitation/create' });
  const answer = { user_name: { action: 'accept', content: { name: 'Alice' } } };
  const done = await call('test_input_required_result_elicitation', {
    inputResponses: answer,
    requestState: first.result?.requestState,
  });
  assert.equal(done.result?.resultType, 'complete');
  assert.equal(done.result?.content?.[0].text, 'Hello, Alice!');
  // An answer without requestState is taken too; unknown keys are ignored, missing ones re-asked.
  const extra = await call('test_input_required_result_elicitation', {
    inputResponses: { ...answer, unknown_extra_key: { action: 'accept', content: {} } },
  });
  assert.equal(extra.result?.content?.[0].text, 'Hello, Alice!');
  const wrongKey = await call('test_input_required_result_elicitation', {
    inputResponses: { wrong_key: answer.user_name },
  });
  assert.deepEqual(methodsOf(wrongKey.result), { user_name: 'elicitation/create' });

  // Three questions asked together go out in one round, with a sealed state.
  const several = await call('test_input_required_result_multiple_inputs');
  assert.deepEqual(methodsOf(several.result), {
    user_name: 'elicitation/create',
    greeting: 'sampling/createMessage',
    client_roots: 'roots/list',
  });
  assert.equal(typeof several.result?.requestState, 'string');

  // An edited state is refused (-32602) and the server carries on.
  const sealed = await call('test_input_required_result_tampered_state');
  const tampered = await call('test_input_required_result_tampered_state', {
    inputResponses: { confirm: { action: 'accept', content: { ok: true } } },
    requestState: `${sealed.result?.requestState}-TAMPERED`,
  });
  assert.equal(tampered.error?.code, -32602, JSON.stringify(tampered));

  // Only the questions the client declared a capability for; without one at all, -32021 / 400.
  const samplingOnly = await call('test_input_required_result_capabilities', {}, { sampling: {} });
  assert.deepEqual(methodsOf(samplingOnly.result), { hello: 'sampling/createMessage' });
  const refused = await call('test_missing_capability', {}, {});
  assert.equal(refused.status, 400);
  assert.equal(refused.error?.code, -32021);
  assert.deepEqual(refused.error?.data?.requiredCapabilities, { sampling: {} });

  // A declared x-mcp-header argument must travel in its Mcp-Param header too.
  const noHeader = await call('test_custom_header_param', { arguments: { region: 'eu' } });
  assert.equal(noHeader.status, 400);
  assert.equal(noHeader.error?.code, -32020);

  // prompts/get may ask too; tools/list never does.
  const prompt = await post2026('prompts/get', { name: 'test_input_required_result_prompt' });
  assert.deepEqual(methodsOf(prompt.result), { user_context: 'elicitation/create' });
  const listed = await post2026('tools/list', {});
  assert.equal(listed.result?.resultType, 'complete');
});
