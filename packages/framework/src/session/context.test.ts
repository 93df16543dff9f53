import assert from 'node:assert/strict';
import { test } from 'node:test';
import { firstText } from '@mcpbox/test-utils';
import type { Client } from '@modelcontextprotocol/client';
import { inMemoryClient } from '../__fixtures__/testServer.ts';
import { createServer, type McpboxServer } from '../server.ts';

function askingServer(): McpboxServer {
  const server = createServer({ name: 'context-test' });
  server.registerTool('ask_model', { description: 'Samples.' }, async (ctx) => {
    const answer = await ctx.sample({
      messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
      maxTokens: 10,
    });
    return answer.content.type === 'text' ? answer.content.text : '';
  });
  server.registerTool('ask_user', { description: 'Elicits.' }, async (ctx) => {
    const answer = await ctx.elicit({
      message: 'Name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
    });
    return `${answer.action} ${JSON.stringify(answer.content ?? {})}`;
  });
  server.registerTool('ask_url', { description: 'Elicits by URL.' }, async (ctx) => {
    const answer = await ctx.elicit({
      mode: 'url',
      message: 'Sign in',
      url: 'https://example.com/login',
      elicitationId: 'e1',
    });
    return answer.action;
  });
  return server;
}

async function call(client: Client, name: string) {
  const result = await client.callTool({ name, arguments: {} });
  return { isError: result.isError === true, text: firstText(result) };
}

test('sampling and elicitation are refused clearly when the client did not declare them', async (t) => {
  const server = askingServer();
  t.after(() => server.close());
  const client = await inMemoryClient(server);
  t.after(() => client.close());
  assert.deepEqual(await call(client, 'ask_model'), {
    isError: true,
    text: 'The client does not support sampling (it declared no sampling capability)',
  });
  assert.deepEqual(await call(client, 'ask_user'), {
    isError: true,
    text: 'The client does not support elicitation (it declared no elicitation capability)',
  });
});

test('a client that declared them is asked; form-only elicitation refuses URL mode', async (t) => {
  const server = askingServer();
  t.after(() => server.close());
  const client = await inMemoryClient(server, {
    capabilities: { sampling: {}, elicitation: { form: {} } },
  });
  t.after(() => client.close());
  client.setRequestHandler('sampling/createMessage', async () => ({
    role: 'assistant',
    model: 'm',
    content: { type: 'text', text: 'model says hi' },
  }));
  client.setRequestHandler('elicitation/create', async () => ({
    action: 'accept',
    content: { name: 'Ada' },
  }));
  assert.deepEqual(await call(client, 'ask_model'), { isError: false, text: 'model says hi' });
  assert.deepEqual(await call(client, 'ask_user'), {
    isError: false,
    text: 'accept {"name":"Ada"}',
  });
  assert.deepEqual(await call(client, 'ask_url'), {
    isError: true,
    text: 'The client does not support url elicitation',
  });
});
