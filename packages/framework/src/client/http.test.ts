// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests write literal ${VAR} placeholders
// UpstreamConnection over HTTP: server-everything's Streamable HTTP and legacy SSE servers (real
// processes), and a small in-process SDK server over node:http for headers and restarts.
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { freePort, stopGroup } from '@mcpbox/test-utils';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { Progress } from '@modelcontextprotocol/server';
import { McpServer } from '@modelcontextprotocol/server';
import { startEverythingHttp } from '../__fixtures__/upstream-processes.ts';
import type { Logger } from '../logging/index.ts';
import { UpstreamConnection } from './connection.ts';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

describe('UpstreamConnection over HTTP with server-everything', () => {
  test('Streamable HTTP: lists tools, calls echo, forwards progress', async (t) => {
    const { child, port } = await startEverythingHttp('streamableHttp');
    t.after(() => stopGroup(child));
    const connection = new UpstreamConnection(
      'everything-http',
      { url: `http://127.0.0.1:${port}/mcp` },
      { logger: silent },
    );
    t.after(() => connection.close());
    const tools = await connection.listTools();
    assert.ok(tools.some((tool) => tool.name === 'echo'));
    assert.equal(connection.transportKind, 'streamableHttp');
    const echo = await connection.callTool('echo', { message: 'over http' });
    assert.deepEqual(echo.content, [{ type: 'text', text: 'Echo: over http' }]);
    const progress: Progress[] = [];
    await connection.callTool(
      'trigger-long-running-operation',
      { duration: 0.2, steps: 2 },
      { onprogress: (p) => progress.push(p) },
    );
    assert.deepEqual(
      progress.map((p) => p.progress),
      [1, 2],
    );
  });

  test('falls back to SSE when the server does not speak Streamable HTTP', async (t) => {
    const { child, port } = await startEverythingHttp('sse');
    t.after(() => stopGroup(child));
    const connection = new UpstreamConnection(
      'everything-sse',
      { url: `http://127.0.0.1:${port}/sse` },
      { logger: silent },
    );
    t.after(() => connection.close());
    const echo = await connection.callTool('echo', { message: 'over sse' });
    assert.deepEqual(echo.content, [{ type: 'text', text: 'Echo: over sse' }]);
    assert.equal(connection.transportKind, 'sse');
  });
});

/** A stateless Streamable HTTP MCP server in this process that records request headers. */
async function startRecordingServer(port = 0): Promise<{
  server: Server;
  port: number;
  headers: IncomingHttpHeaders[];
}> {
  const headers: IncomingHttpHeaders[] = [];
  const server = createServer(async (req, res) => {
    headers.push(req.headers);
    const mcp = new McpServer({ name: 'recorder', version: '1.0.0' });
    mcp.registerTool('ping', { description: 'answers pong' }, () => ({
      content: [{ type: 'text', text: 'pong' }],
    }));
    const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, headers };
}

async function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

describe('UpstreamConnection over HTTP with an in-process server', () => {
  test('sends custom headers, expanding ${VAR} at connect time only', async (t) => {
    const { server, port, headers } = await startRecordingServer();
    t.after(() => stop(server));
    const connection = new UpstreamConnection(
      'recorder',
      {
        url: 'http://127.0.0.1:${RECORDER_PORT}/mcp',
        headers: { Authorization: 'Bearer ${RECORDER_TOKEN}', 'X-Team': 'blue' },
      },
      { env: { RECORDER_PORT: String(port), RECORDER_TOKEN: 'tok-123' }, logger: silent },
    );
    t.after(() => connection.close());
    const result = await connection.callTool('ping', {});
    assert.deepEqual(result.content, [{ type: 'text', text: 'pong' }]);
    assert.ok(headers.length > 0);
    for (const h of headers) {
      assert.equal(h.authorization, 'Bearer tok-123');
      assert.equal(h['x-team'], 'blue');
    }
    assert.ok('url' in connection.params);
    assert.equal(connection.params.headers?.Authorization, 'Bearer ${RECORDER_TOKEN}');
  });

  test('an unreachable server gives a clear error naming the URL as written', async () => {
    const port = await freePort();
    const connection = new UpstreamConnection(
      'nowhere',
      { url: `http://127.0.0.1:${port}/mcp?key=\${KEY}` },
      { env: { KEY: 'secret-key' }, logger: silent },
    );
    await assert.rejects(connection.listTools(), (error: Error & { code?: string }) => {
      assert.equal(error.code, 'CONNECT_FAILED');
      assert.equal(
        error.message,
        `cannot connect to upstream 'nowhere' at http://127.0.0.1:${port}/mcp?key=\${KEY}: fetch failed (ECONNREFUSED)`,
      );
      return true;
    });
  });

  test('a server that went away: clear error, then reconnect on the next call', async (t) => {
    let { server, port } = await startRecordingServer();
    t.after(() => stop(server));
    const connection = new UpstreamConnection(
      'flaky',
      { url: `http://127.0.0.1:${port}/mcp` },
      { logger: silent },
    );
    t.after(() => connection.close());
    await connection.callTool('ping', {});
    await stop(server);
    await assert.rejects(connection.callTool('ping', {}), {
      code: 'CONNECTION_CLOSED',
      message:
        "upstream 'flaky' failed during tools/call (fetch failed); it will be reconnected on the next call",
    });
    ({ server } = await startRecordingServer(port));
    const again = await connection.callTool('ping', {});
    assert.deepEqual(again.content, [{ type: 'text', text: 'pong' }]);
    assert.equal(connection.starts, 2);
  });
});
