/**
 * An HTTP server loads Express only for a request the fast lane does not serve: both eras'
 * common requests leave it unloaded (the memory a server holds), and the first other request —
 * legacy SSE here — is served by the app built for it. Observed with module hooks that report
 * every specifier this process resolves.
 */
import assert from 'node:assert/strict';
import { register } from 'node:module';
import { test } from 'node:test';
import { MessageChannel } from 'node:worker_threads';
import { firstText, waitFor } from '@mcpbox/test-utils';
import {
  Client,
  SSEClientTransport,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { kitchenServer } from '../__fixtures__/testServer.ts';

const HOOKS = new URL('../__fixtures__/resolvedSpecifiers.mjs', import.meta.url);
const resolved = new Set<string>();
const { port1, port2 } = new MessageChannel();
port1.on('message', (specifier: string) => resolved.add(specifier));
port1.unref();
register(HOOKS, {
  data: { port: port2 },
  transferList: [port2],
});

let settles = 0;

/** Resolves once the hooks have reported everything this process resolved before the call. */
async function settled(): Promise<void> {
  // Reports arrive in order: once this import's has, every earlier one has too.
  const sentinel = `data:text/javascript,export default ${++settles}`;
  await import(sentinel);
  await waitFor(() => resolved.has(sentinel), 'the hooks to report a sentinel import');
}

test('Express loads with the first request the fast lane does not serve, and serves it', async (t) => {
  const server = await kitchenServer({ transport: 'http', port: 0 });
  t.after(() => server.close());
  const url = await server.start();
  assert.ok(url);

  for (const versionNegotiation of [{ mode: 'legacy' as const }, { mode: { pin: '2026-07-28' } }]) {
    const client = new Client({ name: 'lazy-app', version: '1' }, { versionNegotiation });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    t.after(() => client.close());
    const result = await client.callTool({ name: 'echo', arguments: { message: 'hi' } });
    assert.equal(firstText(result), 'hi');
  }
  await settled();
  assert.ok(resolved.has('@modelcontextprotocol/server'), 'the hooks see what loads');
  assert.ok(!resolved.has('express'), 'both eras served without Express');

  const legacy = new Client({ name: 'lazy-app-sse', version: '1' });
  await legacy.connect(new SSEClientTransport(new URL(url.replace(/\/mcp$/, '/sse'))));
  t.after(() => legacy.close());
  const result = await legacy.callTool({ name: 'echo', arguments: { message: 'over sse' } });
  assert.equal(firstText(result), 'over sse');
  await settled();
  assert.ok(resolved.has('express'), 'the app serving legacy SSE loaded Express');
});
