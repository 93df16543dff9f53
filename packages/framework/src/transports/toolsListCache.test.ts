// A 2026 `tools/list` over HTTP is answered from the answer kept for its listing: each request
// gets it under its own id, a caller through a view gets the view's, and a change to the catalog
// or to the views shows on the very next request. Requests and callers are counted as before.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rawModern } from '@mcpbox/test-utils';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { createServer } from '../server.ts';

/** A plain 2026 `tools/list` with the given id: the answer's id and its tools' names. */
async function list(url: string, id: string | number) {
  const answer = await rawModern(url, 'tools/list', {}, { id });
  const tools = (answer.result?.tools ?? []) as { name: string }[];
  return { id: answer.id, names: tools.map((tool) => tool.name), result: answer.result };
}

test('a 2026 tools/list answers from its kept answer, per view, until the catalog or views change', async (t) => {
  const server = createServer({ name: 'listing', transport: 'http', port: 0 });
  t.after(() => server.close());
  server.registerTool('alpha', { inputSchema: { text: z.string() } }, ({ text }) => text);
  server.registerTool('beta', { inputSchema: { text: z.string() } }, ({ text }) => text);
  const url = (await server.start()) as string;
  server.access.update({ views: { x: { tools: ['alpha'] } }, policy: undefined });

  const first = await list(url, 1);
  assert.deepEqual(first.names, ['alpha', 'beta']);
  const requestsBefore = server.stats.requests;
  const again = await list(url, 'second');
  assert.equal(again.id, 'second');
  assert.deepEqual(again.result, first.result);
  assert.equal(server.stats.requests, requestsBefore + 1, 'a kept answer is counted');

  assert.deepEqual((await list(`${url}/x`, 3)).names, ['alpha']);
  assert.deepEqual((await list(`${url}/x`, 4)).names, ['alpha']);
  assert.deepEqual((await list(url, 5)).names, ['alpha', 'beta'], 'the view did not leak');

  server.registerTool('gamma', { inputSchema: {} }, () => 'g');
  assert.deepEqual((await list(url, 6)).names, ['alpha', 'beta', 'gamma']);
  assert.deepEqual((await list(`${url}/x`, 7)).names, ['alpha']);

  server.access.update({ views: { x: { tools: ['beta', 'gamma'] } }, policy: undefined });
  assert.deepEqual((await list(`${url}/x`, 8)).names, ['beta', 'gamma']);
  assert.deepEqual((await list(`${url}/x`, 9)).names, ['beta', 'gamma']);

  // The SDK's own 2026 client reads the kept answer as any other.
  const client = new Client(
    { name: 'listing', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  t.after(() => client.close());
  for (let i = 0; i < 2; i++) {
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((tool) => tool.name),
      ['alpha', 'beta', 'gamma'],
    );
  }
});
