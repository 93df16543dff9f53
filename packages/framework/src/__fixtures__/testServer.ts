// Helpers for tests: a server with the fixture plugins' directory, and SDK clients on it.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { createServer, type McpboxServer, type ServerOptions } from '../server.ts';

export const FIXTURE_PLUGINS = join(fileURLToPath(new URL('.', import.meta.url)), 'plugins');

/** A server over the fixture plugins with `kitchen` loaded; closed by the caller. */
export async function kitchenServer(options: ServerOptions = {}): Promise<McpboxServer> {
  const server = createServer({ name: 'test', pluginDirs: [FIXTURE_PLUGINS], ...options });
  const loaded = await server.registry.loadPlugin('kitchen');
  if (!loaded.ok) throw new Error(loaded.error);
  return server;
}

/** A real SDK client connected in-process (linked in-memory transports). */
export async function inMemoryClient(
  server: McpboxServer,
  capabilities: ConstructorParameters<typeof Client>[1] = {},
): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test-client', version: '1.0.0' }, capabilities);
  await client.connect(clientSide);
  return client;
}

/** Request headers of a raw Streamable HTTP POST (JSON body; JSON or SSE answer). */
export const RAW_POST_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

/** A 2025 client's `initialize` request, as a raw JSON-RPC message. */
export const RAW_INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 't', version: '1' },
  },
};

/** Opens a 2025 session with a raw `initialize` POST; its `Mcp-Session-Id`. */
export async function rawInitialize(url: string | URL): Promise<string> {
  const init = await fetch(url, {
    method: 'POST',
    headers: RAW_POST_HEADERS,
    body: JSON.stringify(RAW_INITIALIZE),
  });
  await init.text();
  return init.headers.get('mcp-session-id') as string;
}
