// MCP behaviour of a session, through a real SDK Client on linked in-memory transports.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { firstText } from '@mcpbox/test-utils';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { observed } from '../__fixtures__/plugins/kitchen.ts';
import { inMemoryClient, kitchenServer } from '../__fixtures__/testServer.ts';
import type { PluginServer } from '../contract/plugin.ts';

describe('session: tools', () => {
  test('lists tools with their schemas and calls them', async (t) => {
    const server = await kitchenServer();
    t.after(() => server.close());
    const client = await inMemoryClient(server);
    const { tools } = await client.listTools();
    const echo = tools.find((tool) => tool.name === 'echo');
    assert.deepEqual(echo?.inputSchema.required, ['message']);
    assert.equal(echo?.description, 'Echo a message');
    // A raw JSON Schema reaches the client byte for byte.
    const raw = tools.find((tool) => tool.name === 'json_schema_tool');
    assert.equal(raw?.inputSchema.$schema, 'https://json-schema.org/draft/2020-12/schema');
    assert.deepEqual(raw?.inputSchema.properties, {
      pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }] },
    });

    const result = await client.callTool({ name: 'echo', arguments: { message: 'hi' } });
    assert.deepEqual(result, { content: [{ type: 'text', text: 'hi' }] });
  });

  test('a full result with structured content passes through', async (t) => {
    const server = await kitchenServer();
    t.after(() => server.close());
    const client = await inMemoryClient(server);
    await client.listTools();
    const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    assert.deepEqual(result.structuredContent, { sum: 5 });
    assert.equal(firstText(result), '5');
  });

  test('a throwing handler becomes an isError result with its message', async (t) => {
    const server = await kitchenServer();
    t.after(() => server.close());
    const client = await inMemoryClient(server);
    const result = await client.callTool({ name: 'fail', arguments: {} });
    assert.equal(result.isError, true);
    assert.equal(firstText(result), 'the disk is on fire');
    assert.equal(server.stats.errors, 1);
  });

  test('an unknown tool is a JSON-RPC InvalidParams error', async (t) => {
    const server = await kitchenServer();
    t.after(() => server.close());
    const client = await inMemoryClient(server);
    await assert.rejects(client.callTool({ name: 'nope', arguments: {} }), (error) => {
      assert.ok(error instanceof ProtocolError);
      assert.equal(error.code, ProtocolErrorCode.InvalidParams);
      assert.match(error.message, /Tool nope not found/);
      return true;
    });
  });

  test('invalid arguments give an error naming the field (zod and JSON Schema)', async (t) => {
    const server = await kitchenServer();
    t.after(() => server.close());
    const client = await inMemoryClient(server);
    const zodResult = await client.callTool({ name: 'echo', arguments: { message: 42 } });
    assert.equal(zodResult.isError, true);
    assert.match(
      firstText(zodResult),
      /^Input validation error: Invalid arguments for tool echo: /,
    );
    assert.match(firstText(zodResult), /message/);

    const ok = await client.callTool({ name: 'json_schema_tool', arguments: { pair: ['a', 1] } });
    assert.equal(firstText(ok), 'pair=["a",1]');
    const bad = await client.callTool({
      name: 'json_schema_tool',
      arguments: { pair: ['a', 'b'] },
    });
    assert.equal(bad.isError, true);
    assert.match(firstText(bad), /pair\/1 must be integer/);
  });

  test('progress notifications from a handler reach the client', async (t) => {
    const server = await kitchenServer();
    t.after(() => server.close());
    const client = await inMemoryClient(server);
    const seen: { progress: number; total?: number; message?: string }[] = [];
    const result = await client.callTool(
      { name: 'count', arguments: { to: 3 } },
      {
        onprogress: (p) => seen.push(p),
      },
    );
    assert.equal(firstText(result), 'counted to 3');
    assert.deepEqual(
      seen.map((p) => [p.progress, p.total, p.message]),
      [
        [1, 3, 'step 1'],
        [2, 3, 'step 2'],
        [3, 3, 'step 3'],
      ],
    );
  });

  test('ctx.log honours the level the client set', async (t) => {
    const server = await kitchenServer();
    t.after(() => server.close());
    const client = await inMemoryClient(server);
    const messages: unknown[] = [];
    client.setNotificationHandler('notifications/message', (n) => {
      messages.push([n.params.level, n.params.data]);
    });
    await client.setLoggingLevel('warning');
    await client.callTool({ name: 'shout_log', arguments: {} });
    assert.deepEqual(messages, [['error', 'loud problem']]);
  });

  test('sampling and elicitation round-trip through the client', async (t) => {
    const server = await kitchenServer();
    t.after(() => server.close());
    const client = await inMemoryClient(server, {
      capabilities: { sampling: {}, elicitation: {} },
    });
    client.setRequestHandler('sampling/createMessage', async (request) => {
      const content = request.params.messages[0].content;
      const first = Array.isArray(content) ? content[0] : content;
      return {
        role: 'assistant',
        model: 'test-model',
        content: { type: 'text', text: `echo of ${first.type === 'text' ? first.text : ''}` },
      };
    });
    client.setRequestHandler('elicitation/create', async () => ({
      action: 'accept',
      content: { name: 'Ada' },
    }));
    const sampled = await client.callTool({ name: 'ask_model', arguments: { question: '2+2?' } });
    assert.equal(firstText(sampled), 'model said: echo of 2+2?');
    const elicited = await client.callTool({ name: 'ask_user', arguments: {} });
    assert.equal(firstText(elicited), 'hello Ada');
  });

  test('a client that cannot sample makes the tool fail as an isError result', async (t) => {
    const server = await kitchenServer();
    t.after(() => server.close());
    const client = await inMemoryClient(server);
    const result = await client.callTool({ name: 'ask_model', arguments: { question: 'q' } });
    assert.equal(result.isError, true);
    assert.equal(
      firstText(result),
      'The client does not support sampling (it declared no sampling capability)',
    );
  });

  test('a cancelled call aborts the handler signal', async (t) => {
    const server = await kitchenServer();
    t.after(() => server.close());
    const client = await inMemoryClient(server);
    const before = observed.aborted;
    const controller = new AbortController();
    const call = client.callTool(
      { name: 'wait_for_abort', arguments: {} },
      {
        signal: controller.signal,
      },
    );
    await client.ping(); // the call has reached the server
    controller.abort('user gave up');
    await assert.rejects(call);
    await client.ping();
    assert.equal(observed.aborted, before + 1);
  });

  test('an unknown method is a JSON-RPC MethodNotFound error', async (t) => {
    const server = await kitchenServer();
    t.after(() => server.close());
    const client = await inMemoryClient(server);
    await assert.rejects(
      client.request({ method: 'tools/frobnicate', params: {} }, z.object({})),
      (error) => error instanceof ProtocolError && error.code === ProtocolErrorCode.MethodNotFound,
    );
  });

  test('interceptors see every call and may change the result or refuse it', async (t) => {
    const server = await kitchenServer();
    t.after(() => server.close());
    const client = await inMemoryClient(server);
    const seen: string[] = [];
    const remove = server.addToolCallInterceptor(async (call, next) => {
      seen.push(`${call.plugin}/${call.tool}:${JSON.stringify(call.args)}`);
      if (call.tool === 'add')
        throw new ProtocolError(ProtocolErrorCode.InvalidRequest, 'blocked by policy');
      const result = await next();
      return { ...result, _meta: { intercepted: true } };
    });
    const echoed = await client.callTool({ name: 'echo', arguments: { message: 'x' } });
    assert.deepEqual(echoed._meta, { intercepted: true });
    await assert.rejects(
      client.callTool({ name: 'add', arguments: { a: 1, b: 1 } }),
      /blocked by policy/,
    );
    assert.deepEqual(seen, ['kitchen/echo:{"message":"x"}', 'kitchen/add:{"a":1,"b":1}']);
    remove();
    const plain = await client.callTool({ name: 'echo', arguments: { message: 'y' } });
    assert.equal(plain._meta, undefined);
  });
});

describe('session: resources, prompts, completions', () => {
  test('static resources, template listing and reads', async (t) => {
    const server = await kitchenServer();
    t.after(() => server.close());
    const client = await inMemoryClient(server);
    const { resources } = await client.listResources();
    assert.deepEqual(
      resources.map((r) => r.uri),
      ['kitchen://readme', 'kitchen://colours/red'],
    );
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.deepEqual(resourceTemplates, [
      { name: 'colour', uriTemplate: 'kitchen://colours/{name}', mimeType: 'text/plain' },
    ]);
    const readme = await client.readResource({ uri: 'kitchen://readme' });
    assert.deepEqual(readme.contents, [{ uri: 'kitchen://readme', text: 'kitchen readme' }]);
    const blue = await client.readResource({ uri: 'kitchen://colours/blue' });
    assert.deepEqual(blue.contents, [{ uri: 'kitchen://colours/blue', text: 'colour blue' }]);
    await assert.rejects(client.readResource({ uri: 'kitchen://nothing' }), (error) => {
      assert.ok(error instanceof ProtocolError);
      assert.equal(error.code, ProtocolErrorCode.InvalidParams);
      assert.match(error.message, /Resource kitchen:\/\/nothing not found/);
      return true;
    });
  });

  test('prompts with arguments, and argument errors', async (t) => {
    const server = await kitchenServer();
    t.after(() => server.close());
    const client = await inMemoryClient(server);
    const { prompts } = await client.listPrompts();
    assert.deepEqual(prompts, [
      {
        name: 'paint',
        description: 'Paint something',
        arguments: [
          { name: 'colour', description: 'Which colour', required: true },
          { name: 'thing', required: false },
        ],
      },
    ]);
    const got = await client.getPrompt({
      name: 'paint',
      arguments: { colour: 'red', thing: 'door' },
    });
    assert.deepEqual(got.messages, [
      { role: 'user', content: { type: 'text', text: 'Paint the door red' } },
    ]);
    await assert.rejects(client.getPrompt({ name: 'paint', arguments: {} }), /colour/);
    await assert.rejects(client.getPrompt({ name: 'nope' }), /Prompt nope not found/);
  });

  test('completions for prompt arguments and template variables', async (t) => {
    const server = await kitchenServer();
    t.after(() => server.close());
    const client = await inMemoryClient(server);
    const prompt = await client.complete({
      ref: { type: 'ref/prompt', name: 'paint' },
      argument: { name: 'colour', value: 'bl' },
    });
    assert.deepEqual(prompt.completion, { values: ['blue', 'black'], total: 2, hasMore: false });
    const template = await client.complete({
      ref: { type: 'ref/resource', uri: 'kitchen://colours/{name}' },
      argument: { name: 'name', value: 'g' },
    });
    assert.deepEqual(template.completion.values, ['green']);
    const none = await client.complete({
      ref: { type: 'ref/prompt', name: 'paint' },
      argument: { name: 'thing', value: 'd' },
    });
    assert.deepEqual(none.completion.values, []);
  });

  test('a subscribed client hears resource updates', async (t) => {
    const server = await kitchenServer();
    t.after(() => server.close());
    let plugin: PluginServer | undefined;
    await server.registry.loadPlugin('notifier', {
      module: {
        register(s: PluginServer) {
          plugin = s;
          s.registerResource('clock', 'clock://now', {}, () => new Date().toISOString());
        },
      },
    });
    const client = await inMemoryClient(server);
    const updates: string[] = [];
    client.setNotificationHandler('notifications/resources/updated', (n) => {
      updates.push(n.params.uri);
    });
    await client.subscribeResource({ uri: 'clock://now' });
    plugin?.notifyResourceUpdated('clock://now');
    plugin?.notifyResourceUpdated('clock://other');
    await client.ping(); // a round trip, so the notification has arrived
    assert.deepEqual(updates, ['clock://now']);
  });
});

describe('session: one catalog, many sessions', () => {
  test('list_changed reaches two sessions on load and unload; collisions keep the owner working', async (t) => {
    const server = await kitchenServer();
    t.after(() => server.close());
    const clients = [await inMemoryClient(server), await inMemoryClient(server)];
    const heard = [0, 0];
    clients.forEach((client, i) => {
      client.setNotificationHandler('notifications/tools/list_changed', () => {
        heard[i] += 1;
      });
    });
    assert.equal((await server.registry.loadPlugin('alpha')).ok, true);
    await Promise.all(clients.map((c) => c.ping()));
    assert.deepEqual(heard, [1, 1]);
    for (const client of clients) {
      const { tools } = await client.listTools();
      assert.ok(tools.some((tool) => tool.name === 'alpha_echo'));
    }

    const clash = await server.registry.loadPlugin('clash_tool');
    assert.equal(clash.ok, false);
    const still = await clients[1].callTool({ name: 'alpha_echo', arguments: { message: 'm' } });
    assert.equal(firstText(still), 'alpha: m');

    await server.registry.unloadPlugin('alpha');
    await Promise.all(clients.map((c) => c.ping()));
    assert.deepEqual(heard, [2, 2]);
    await assert.rejects(
      clients[0].callTool({ name: 'alpha_echo', arguments: { message: 'm' } }),
      /Tool alpha_echo not found/,
    );
  });

  test('tools registered straight on the server, owned by the built-in plugin', async (t) => {
    const server = await kitchenServer();
    t.after(() => server.close());
    server.registerTool(
      'hello',
      { inputSchema: z.object({ name: z.string() }) },
      ({ name }) => `Hello, ${name}!`,
    );
    assert.throws(() => server.registerTool('hello', {}, () => 'again'), /already registered/);
    assert.equal(server.registry.findToolOwner('hello'), 'server');
    const client = await inMemoryClient(server);
    const result = await client.callTool({ name: 'hello', arguments: { name: 'Ada' } });
    assert.equal(firstText(result), 'Hello, Ada!');
    assert.ok(server.stats.requests >= 1);
    assert.equal(typeof server.stats.last_request, 'number');
  });
});
