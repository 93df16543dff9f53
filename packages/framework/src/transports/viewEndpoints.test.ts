// Views over real HTTP as they change at run time: a view added by `access.update` is served at
// `/mcp/<name>` on its next request; one removed answers 404 naming the views there are, its
// open sessions included. A 2026 call through a view checks `Mcp-Param-*` headers against the
// view's tool (its name there, its fixed arguments hidden).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rawModern } from '@mcpbox/test-utils';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { z } from 'zod';
import type { ViewSettings } from '../access/settings.ts';
import { createServer, type McpboxServer } from '../server.ts';

type After = { after: (fn: () => Promise<void> | void) => void };

async function start(t: After): Promise<{ server: McpboxServer; url: string }> {
  const server = createServer({ name: 'views', transport: 'http', port: 0 });
  t.after(() => server.close());
  server.registerTool('alpha', { inputSchema: { text: z.string() } }, ({ text }) => `a:${text}`);
  server.registerTool('beta', { inputSchema: { text: z.string() } }, ({ text }) => `b:${text}`);
  server.registerTool(
    'route',
    { inputSchema: { region: z.string().meta({ 'x-mcp-header': 'Region' }) } },
    ({ region }) => `to ${region}`,
  );
  return { server, url: (await server.start()) as string };
}

const views = (server: McpboxServer, all: Record<string, ViewSettings>) =>
  server.access.update({ views: all, policy: undefined });

async function refusal(url: string) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  const body = (await response.json()) as { error?: { message?: string } };
  return { status: response.status, message: body.error?.message };
}

test('a view added at run time is served; a removed one is 404, its open sessions too', async (t) => {
  const { server, url } = await start(t);
  assert.deepEqual(await refusal(`${url}/x`), {
    status: 404,
    message: 'no view named "x": no views are configured (views: in the config file)',
  });

  views(server, { x: { tools: ['alpha'] } });
  const client = new Client({ name: 'views', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/x`)));
  t.after(() => client.close());
  assert.deepEqual(
    (await client.listTools()).tools.map((tool) => tool.name),
    ['alpha'],
  );
  const listed = await rawModern(`${url}/x`, 'tools/list', {});
  assert.deepEqual(
    ((listed.result?.tools ?? []) as { name: string }[]).map((tool) => tool.name),
    ['alpha'],
  );

  views(server, { y: { tools: ['beta'] }, z: {} });
  await assert.rejects(client.listTools(), /no view named .+x.+: the views are y, z/);
  assert.deepEqual(await refusal(`${url}/x`), {
    status: 404,
    message: 'no view named "x": the views are y, z',
  });
  const modern = await rawModern(`${url}/y`, 'tools/call', {
    name: 'beta',
    arguments: { text: 'hi' },
  });
  assert.deepEqual(modern.result?.content, [{ type: 'text', text: 'b:hi' }]);
});

test("2026 Mcp-Param-* headers are checked against the view's tool: its name there, fixed arguments hidden", async (t) => {
  const { server, url } = await start(t);
  views(server, {
    renamed: { tools: ['route'], rename: { route: 'go' } },
    fixed: { tools: ['route'], fixed_arguments: { route: { region: 'eu' } } },
  });
  const call = (path: string, name: string, args: object, headers?: Record<string, string>) =>
    rawModern(`${url}${path}`, 'tools/call', { name, arguments: args }, { headers });

  const missing = await call('/renamed', 'go', { region: 'us' });
  assert.equal(missing.error?.code, -32020, JSON.stringify(missing));
  assert.match(missing.error?.message ?? '', /Mcp-Param-Region/);
  const sent = await call('/renamed', 'go', { region: 'us' }, { 'mcp-param-region': 'us' });
  assert.deepEqual(sent.result?.content, [{ type: 'text', text: 'to us' }]);

  // The view sets region itself: the caller has no header to send.
  const fixed = await call('/fixed', 'route', {});
  assert.deepEqual(fixed.result?.content, [{ type: 'text', text: 'to eu' }], JSON.stringify(fixed));
});
