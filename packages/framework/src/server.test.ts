// createServer(): the standalone shape (config in, tool added, started), lifecycle and counters.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { firstText } from '@mcpbox/test-utils';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { loadConfig } from './config/index.ts';
import { createServer } from './server.ts';

test('the standalone example: config from loadConfig, a tool, start over HTTP', async (t) => {
  const config = loadConfig({
    env: { MCP_SERVER_NAME: 'standalone', MCP_TRANSPORT: 'http' },
    defaults: { instructions: 'Say hello.' },
  });
  const server = createServer(config, { port: 0 });
  t.after(() => server.close());
  server.registerTool(
    'hello',
    { description: 'Greets', inputSchema: z.object({ name: z.string() }) },
    ({ name }) => `Hello, ${name}!`,
  );
  const url = await server.start();
  assert.match(url ?? '', /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  assert.equal(server.url, url);

  const client = new Client({ name: 'standalone-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url ?? '')));
  t.after(() => client.close());
  assert.equal(client.getServerVersion()?.name, 'standalone');
  assert.equal(client.getInstructions(), 'Say hello.');
  const result = await client.callTool({ name: 'hello', arguments: { name: 'Ada' } });
  assert.equal(firstText(result), 'Hello, Ada!');

  assert.equal(server.stats.connections, 1);
  assert.equal(server.stats.sessions, 1);
  assert.ok(server.stats.requests >= 1);
  assert.equal(server.stats.errors, 0);
  assert.ok(typeof server.stats.last_request === 'number');
  await assert.rejects(server.start(), /already started/);
});

test('close() ends sessions, frees the port and resolves `closed`', async () => {
  const server = createServer({ transport: 'http', port: 0 });
  const url = await server.start();
  const client = new Client({ name: 'close-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url ?? '')));
  await server.close();
  await server.closed;
  assert.equal(server.stats.sessions, 0);
  await assert.rejects(fetch(url ?? ''), /fetch failed/);
  await client.close();
});

test('a busy port is a clear error', async (t) => {
  const first = createServer({ transport: 'http', port: 0 });
  t.after(() => first.close());
  const url = new URL((await first.start()) ?? '');
  const second = createServer({ transport: 'http', port: Number(url.port) });
  t.after(() => second.close());
  // Its own code, not ALREADY_STARTED: a caller can tell "pick another port" from misuse.
  await assert.rejects(second.start(), {
    name: 'PortInUseError',
    code: 'PORT_IN_USE',
    message: new RegExp(`MCP port ${url.port} on 127.0.0.1 is already in use`),
  });
});
