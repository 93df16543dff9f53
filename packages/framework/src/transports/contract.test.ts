// The transport contract, run over every transport: in-memory, stdio (a real child process),
// Streamable HTTP (stateful and stateless) and legacy SSE.
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Transport } from '@modelcontextprotocol/client';
import {
  Client,
  SSEClientTransport,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { inMemoryClient, kitchenServer } from '../__fixtures__/testServer.ts';
import type { McpboxServer, ServerOptions } from '../server.ts';
import { runTransportContract } from './transport.contract.ts';

const STDIO_SERVER = join(
  fileURLToPath(new URL('.', import.meta.url)),
  '../__fixtures__/stdioServer.ts',
);

async function clientOn(transport: Transport): Promise<Client> {
  const client = new Client({ name: 'contract', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** A started kitchen server for the suite; closed after it. */
function serverFor(options: ServerOptions): { server: () => McpboxServer; url: () => string } {
  let server: McpboxServer | undefined;
  let url = '';
  before(async () => {
    server = await kitchenServer(options);
    url = (await server.start()) ?? '';
  });
  after(() => server?.close());
  return {
    server: () => server as McpboxServer,
    url: () => url,
  };
}

describe('in-memory', () => {
  let server: McpboxServer | undefined;
  before(async () => {
    server = await kitchenServer();
  });
  after(() => server?.close());
  runTransportContract('in-memory', () => inMemoryClient(server as McpboxServer));
});

describe('stdio', () => {
  runTransportContract('stdio', () =>
    clientOn(
      new StdioClientTransport({
        command: process.execPath,
        args: ['--import', 'tsx', STDIO_SERVER],
      }),
    ),
  );
});

describe('Streamable HTTP', () => {
  const { url } = serverFor({ transport: 'http', port: 0 });
  runTransportContract('streamable http', () =>
    clientOn(new StreamableHTTPClientTransport(new URL(url()))),
  );
});

describe('stateless Streamable HTTP', () => {
  const { url } = serverFor({ transport: 'http', port: 0, stateless: true });
  runTransportContract(
    'stateless http',
    () => clientOn(new StreamableHTTPClientTransport(new URL(url()))),
    { serverRequests: false },
  );
});

describe('legacy SSE', () => {
  const { url } = serverFor({ transport: 'sse', port: 0 });
  runTransportContract('sse', () => clientOn(new SSEClientTransport(new URL(url()))));
});
