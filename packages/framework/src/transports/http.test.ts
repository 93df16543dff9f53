// Streamable HTTP, stateless HTTP and legacy SSE over real sockets, with the real SDK clients.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { describe, test } from 'node:test';
import { firstText, waitFor } from '@mcpbox/test-utils';
import {
  Client,
  SSEClientTransport,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { kitchenServer } from '../__fixtures__/testServer.ts';
import type { McpboxServer, ServerOptions } from '../server.ts';

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw', version: '1' },
  },
};
const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

async function httpServer(
  t: { after: (fn: () => unknown) => void },
  options: ServerOptions = {},
): Promise<{ server: McpboxServer; url: string }> {
  const server = await kitchenServer({ transport: 'http', port: 0, ...options });
  t.after(() => server.close());
  const url = await server.start();
  assert.ok(url);
  return { server, url };
}

async function streamableClient(
  url: string,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: 'http-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

/** A request with a Host header fetch() would not let us forge. */
function rawPost(url: string, headers: Record<string, string>, body: string) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers }, (res) => {
      let data = '';
      res.on('data', (chunk) => {
        data += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('Streamable HTTP', () => {
  test('binds 127.0.0.1, serves tools, and a DELETEd session then gets 404', async (t) => {
    const { server, url } = await httpServer(t);
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const { client, transport } = await streamableClient(url);
    const sessionId = transport.sessionId;
    assert.ok(sessionId);
    const result = await client.callTool({ name: 'echo', arguments: { message: 'over http' } });
    assert.equal(firstText(result), 'over http');
    assert.equal(server.stats.sessions, 1);

    await transport.terminateSession();
    const after = await fetch(url, {
      method: 'POST',
      headers: {
        ...MCP_HEADERS,
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    assert.equal(after.status, 404);
    assert.deepEqual(await after.json(), {
      jsonrpc: '2.0',
      error: { code: -32001, message: 'Session not found' },
      id: null,
    });
    assert.equal(server.stats.sessions, 0);
    await client.close();
  });

  test('a request without a session id that is not initialize gets 400', async (t) => {
    const { url } = await httpServer(t);
    const response = await fetch(url, {
      method: 'POST',
      headers: MCP_HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(response.status, 400);
  });

  test('malformed JSON is a JSON-RPC parse error with HTTP 400, and the server stays up', async (t) => {
    const { server, url } = await httpServer(t);
    const response = await fetch(url, {
      method: 'POST',
      headers: MCP_HEADERS,
      body: '{"jsonrpc": "2.0", "id": 1,',
    });
    assert.equal(response.status, 400);
    const body = (await response.json()) as { error: { code: number } };
    assert.equal(body.error.code, -32700);
    assert.ok(server.stats.errors >= 1);
    const { client } = await streamableClient(url);
    assert.equal(
      firstText(await client.callTool({ name: 'echo', arguments: { message: 'ok' } })),
      'ok',
    );
    await client.close();
  });

  // Plain requests to /mcp skip Express (fastLane.ts) unless the app holds something of the
  // caller's (configureApp, middleware); both lanes must answer bad bodies alike.
  for (const lane of ['fast lane', 'Express'] as const) {
    test(`bad bodies get the same answers through the ${lane}`, async (t) => {
      const { server, url } = await httpServer(
        t,
        lane === 'Express' ? { configureApp: () => undefined } : {},
      );
      const post = (body: string | Uint8Array, headers: Record<string, string> = MCP_HEADERS) =>
        fetch(url, { method: 'POST', headers, body }).then(async (r) => {
          const text = await r.text();
          const json = () => JSON.parse(text) as { error?: { code: number; message: string } };
          return { status: r.status, body: r.status === 200 ? {} : json() };
        });
      const tooLarge = await post(`{"pad":"${'x'.repeat(4 * 1024 * 1024)}"}`);
      assert.equal(tooLarge.status, 413);
      assert.equal(tooLarge.body.error?.code, -32600);
      assert.match(tooLarge.body.error?.message ?? '', /too large/);
      const notAnObject = await post('"tools/list"');
      assert.equal(notAnObject.status, 400);
      assert.equal(notAnObject.body.error?.code, -32700);
      const badHost = await rawPost(url, { ...MCP_HEADERS, host: 'evil.example' }, '{}');
      assert.equal(badHost.status, 403);
      // A body with a charset, and one in two chunks, still parse.
      const { client } = await streamableClient(url);
      t.after(() => client.close());
      assert.equal(
        firstText(
          await client.callTool({ name: 'echo', arguments: { message: 'é'.repeat(5000) } }),
        ),
        'é'.repeat(5000),
      );
      const withCharset = await post(JSON.stringify(INIT), {
        ...MCP_HEADERS,
        'content-type': 'application/json; charset=utf-8',
      });
      assert.equal(withCharset.status, 200);
      assert.ok(server.stats.errors >= 3);
    });
  }

  test('DNS-rebinding protection: a foreign Host or Origin is refused on a loopback bind', async (t) => {
    const { url } = await httpServer(t);
    const body = JSON.stringify(INIT);
    const badHost = await rawPost(url, { ...MCP_HEADERS, host: 'evil.example:80' }, body);
    assert.equal(badHost.status, 403);
    assert.match(badHost.body, /Invalid Host: evil\.example/);
    const badOrigin = await rawPost(url, { ...MCP_HEADERS, origin: 'http://evil.example' }, body);
    assert.equal(badOrigin.status, 403);
    assert.match(badOrigin.body, /Invalid Origin/);
    const goodOrigin = await rawPost(
      url,
      { ...MCP_HEADERS, origin: 'http://localhost:3000' },
      body,
    );
    assert.equal(goodOrigin.status, 200);
    // The same guard on the routes of the app built for the first request the fast lane does
    // not serve (legacy SSE here).
    const messages = url.replace(/\/mcp$/, '/messages?sessionId=none');
    const reboundSse = await rawPost(messages, { ...MCP_HEADERS, host: 'evil.example:80' }, body);
    assert.equal(reboundSse.status, 403);
    assert.match(reboundSse.body, /Invalid Host: evil\.example/);
  });

  test('list_changed reaches two HTTP sessions when a plugin loads', async (t) => {
    // Server-initiated notifications travel on each session's standalone GET stream; count the
    // streams the server has answered so the load happens after both are open.
    let openGetStreams = 0;
    const { server, url } = await httpServer(t, {
      configureApp: (app) => {
        app.use((req, res, next) => {
          if (req.method === 'GET' && req.path === '/mcp') {
            const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => typeof res;
            res.writeHead = ((...args: unknown[]) => {
              openGetStreams += 1;
              return writeHead(...args);
            }) as typeof res.writeHead;
          }
          next();
        });
      },
    });
    const a = await streamableClient(url);
    const b = await streamableClient(url);
    t.after(() => Promise.all([a.client.close(), b.client.close()]));
    const heard = (client: Client) =>
      new Promise<void>((resolve) =>
        client.setNotificationHandler('notifications/tools/list_changed', () => resolve()),
      );
    const both = Promise.all([heard(a.client), heard(b.client)]);
    await waitFor(() => openGetStreams === 2, 'two open GET streams', 5000);
    assert.equal((await server.registry.loadPlugin('alpha')).ok, true);
    await both;
    const { tools } = await b.client.listTools();
    assert.ok(tools.some((tool) => tool.name === 'alpha_echo'));
  });

  test('50 concurrent sessions each see only their own session id', async (t) => {
    const { url } = await httpServer(t);
    const sessions = await Promise.all(Array.from({ length: 50 }, () => streamableClient(url)));
    t.after(() => Promise.all(sessions.map((s) => s.client.close())));
    const answers = await Promise.all(
      sessions.flatMap(({ client, transport }) =>
        [1, 2, 3].map(async () => {
          const result = await client.callTool({ name: 'whoami', arguments: {} });
          return [transport.sessionId, firstText(result)];
        }),
      ),
    );
    assert.equal(answers.length, 150);
    for (const [expected, got] of answers) assert.equal(got, expected);
    assert.equal(new Set(answers.map(([id]) => id)).size, 50);
  });

  test('stateless mode: no session id, a fresh server per request, tools still work', async (t) => {
    const { server, url } = await httpServer(t, { stateless: true });
    const { client, transport } = await streamableClient(url);
    assert.equal(transport.sessionId, undefined);
    const result = await client.callTool({ name: 'echo', arguments: { message: 'stateless' } });
    assert.equal(firstText(result), 'stateless');
    assert.equal(server.stats.sessions, 0);
    await client.close();
  });

  test('extra middleware guards the MCP paths; configureApp adds routes', async (t) => {
    const { url } = await httpServer(t, {
      httpMiddleware: [
        (req, res, next) => {
          if (req.headers.authorization === 'Bearer letmein') return next();
          res.status(401).json({ error: 'unauthorized' });
        },
      ],
      configureApp: (app) => {
        app.get('/.well-known/hello', (_req, res) => {
          res.json({ hello: 'world' });
        });
      },
    });
    const base = url.replace(/\/mcp$/, '');
    assert.deepEqual(await (await fetch(`${base}/.well-known/hello`)).json(), { hello: 'world' });
    const denied = await fetch(url, {
      method: 'POST',
      headers: MCP_HEADERS,
      body: JSON.stringify(INIT),
    });
    assert.equal(denied.status, 401);
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: 'Bearer letmein' } },
    });
    const client = new Client({ name: 'auth-test', version: '1.0.0' });
    await client.connect(transport);
    assert.equal(
      firstText(await client.callTool({ name: 'echo', arguments: { message: 'in' } })),
      'in',
    );
    await client.close();
  });
});

describe('legacy SSE', () => {
  test('the SDK SSE client works against /sse of an http server', async (t) => {
    const { server, url } = await httpServer(t);
    const transport = new SSEClientTransport(new URL(url.replace(/\/mcp$/, '/sse')));
    const client = new Client({ name: 'sse-test', version: '1.0.0' });
    await client.connect(transport);
    t.after(() => client.close());
    const result = await client.callTool({ name: 'echo', arguments: { message: 'old client' } });
    assert.equal(firstText(result), 'old client');
    assert.equal(server.stats.sessions, 1);
  });

  test("transport 'sse' serves only the legacy pair", async (t) => {
    const { url } = await httpServer(t, { transport: 'sse' });
    assert.match(url, /\/sse$/);
    const mcp = await fetch(url.replace(/\/sse$/, '/mcp'), {
      method: 'POST',
      headers: MCP_HEADERS,
      body: JSON.stringify(INIT),
    });
    assert.equal(mcp.status, 404);
    const client = new Client({ name: 'sse-test', version: '1.0.0' });
    await client.connect(new SSEClientTransport(new URL(url)));
    t.after(() => client.close());
    assert.ok((await client.listTools()).tools.length > 0);
  });
});
