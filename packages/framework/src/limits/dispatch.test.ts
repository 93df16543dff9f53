/**
 * The dispatcher asks the limiter on every call, as a client over MCP sees it (an in-memory
 * client of a real server): a call running holds its slot and a second is refused with -32029;
 * a call a running tool makes for the same caller takes no second slot; a failed call gives
 * its slot back.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { firstText, waitFor } from '@mcpbox/test-utils';
import { inMemoryClient } from '../__fixtures__/testServer.ts';
import { createServer } from '../server.ts';
import { parseLimitSettings } from './settings.ts';

test('one running call per principal: refused while it runs, nested calls pass, slots come back', async (t) => {
  const server = createServer({ limits: parseLimitSettings({ per_principal: { concurrent: 1 } }) });
  t.after(() => server.close());
  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  server.registerTool('hold', {}, async () => {
    await finished;
    return 'held';
  });
  server.registerTool('boom', {}, () => {
    throw new Error('boom');
  });
  server.registerTool('echo', {}, () => 'echo');
  server.registerTool('outer', {}, async (ctx) => {
    const inner = await server.callTool('echo', {}, ctx);
    return `outer+${firstText(inner)}`;
  });
  const client = await inMemoryClient(server);
  t.after(() => client.close());

  assert.equal((await client.callTool({ name: 'boom', arguments: {} })).isError, true);
  assert.equal((await client.callTool({ name: 'boom', arguments: {} })).isError, true);
  assert.equal(firstText(await client.callTool({ name: 'outer', arguments: {} })), 'outer+echo');

  const holding = client.callTool({ name: 'hold', arguments: {} });
  const running = async () => (await server.limits!.usage('anonymous')).budgets[0]?.used === 1;
  await waitFor(running, 'hold holds the slot');
  await assert.rejects(client.callTool({ name: 'echo', arguments: {} }), {
    code: -32029,
    message: /concurrency limit of 1 running call for anonymous reached/,
  });
  finish();
  assert.equal(firstText(await holding), 'held');
  assert.equal(firstText(await client.callTool({ name: 'echo', arguments: {} })), 'echo');
});
