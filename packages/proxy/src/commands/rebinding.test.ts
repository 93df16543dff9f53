/**
 * DNS-rebinding protection on every loopback spelling, through the real `mcp-factory` bin bound
 * to 127.0.0.2 (loopback, so it serves without authentication): a web page that pointed its own
 * name at that address sends its name in `Host` (and `Origin`), and the MCP endpoint and the
 * health server refuse it with 403 and a message saying why; a client addressing 127.0.0.2 is
 * served. A health server beyond loopback says at start what it exposes.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { describe, type TestContext, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runServerBin } from '@mcpbox/test-utils';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const FACTORY_BIN = fileURLToPath(new URL('../../bin/mcp-factory.js', import.meta.url));
const READY = /MCP endpoint:\s+(\S+)\nHealth:\s+(\S+)\/health/;

/** A request with the headers a browser sends for a page on a rebound name (node:http lets us set Host). */
function send(
  url: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: body === undefined ? 'GET' : 'POST', headers }, (res) => {
      let text = '';
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** A whole 2026-07-28 tool call in one request: what a page would send to use the server. */
const MODERN_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': 'echo',
};
const MODERN_CALL = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: {
    name: 'echo',
    arguments: { message: 'rebound' },
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 'page', version: '1' },
    },
  },
};

async function factoryOn(t: TestContext, host: string, healthHost: string) {
  const run = await runServerBin(
    t,
    FACTORY_BIN,
    [
      '-p',
      'echo',
      '--http',
      '0',
      '--host',
      host,
      '--health-port',
      '0',
      '--health-host',
      healthHost,
    ],
    READY,
  );
  assert.ok(run.match, run.stderr());
  return { run, mcpUrl: run.match[1], healthUrl: run.match[2] };
}

describe('mcp-factory --host 127.0.0.2 (a loopback spelling)', () => {
  test('a rebound Host or Origin is refused with 403 on the MCP endpoint and the health server', async (t) => {
    const { mcpUrl, healthUrl } = await factoryOn(t, '127.0.0.2', '127.0.0.2');
    assert.equal(new URL(mcpUrl).hostname, '127.0.0.2');
    const port = new URL(mcpUrl).port;

    const rebound = await send(
      mcpUrl,
      { ...MODERN_HEADERS, host: `evil.example:${port}` },
      MODERN_CALL,
    );
    assert.equal(rebound.status, 403, rebound.text);
    assert.match(
      JSON.parse(rebound.text).error.message,
      /^Invalid Host: evil\.example:\d+: this server listens on loopback and answers only requests addressed to a loopback name \(localhost, 127\.0\.0\.1, \[::1\]\), so a web page cannot reach it through DNS rebinding$/,
    );
    assert.doesNotMatch(rebound.text, /rebound"/, 'the tool did not run');

    const crossSite = await send(
      mcpUrl,
      { ...MODERN_HEADERS, host: `127.0.0.2:${port}`, origin: `http://evil.example:${port}` },
      MODERN_CALL,
    );
    assert.equal(crossSite.status, 403, crossSite.text);
    assert.match(
      JSON.parse(crossSite.text).error.message,
      /^Invalid Origin: http:\/\/evil\.example:\d+: /,
    );

    const healthPort = new URL(healthUrl).port;
    const plugins = `${healthUrl}/health/plugins`;
    const reboundHealth = await send(plugins, { host: `evil.example:${healthPort}` });
    assert.equal(reboundHealth.status, 403, reboundHealth.text);
    assert.match(JSON.parse(reboundHealth.text).error, /^Invalid Host: evil\.example:\d+: /);
    assert.doesNotMatch(reboundHealth.text, /echo/, 'no inventory for the page');
    const ownHealth = await send(plugins, { host: `127.0.0.2:${healthPort}` });
    assert.equal(ownHealth.status, 200);
    assert.match(ownHealth.text, /"echo"/);

    // A client that addresses the server by its loopback address is served, in both eras.
    const own = await send(mcpUrl, { ...MODERN_HEADERS, host: `127.0.0.2:${port}` }, MODERN_CALL);
    assert.equal(own.status, 200, own.text);
    assert.match(own.text, /"text":"rebound"/);
    const client = new Client({ name: 'rebinding-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
    t.after(() => client.close());
    const result = await client.callTool({ name: 'echo', arguments: { message: 'own' } });
    assert.deepEqual(result.content, [{ type: 'text', text: 'own' }]);
  });

  test('--health-host 0.0.0.0 warns at start that /health/* and /metrics are open', async (t) => {
    const { run } = await factoryOn(t, '127.0.0.1', '0.0.0.0');
    assert.match(
      run.stderr(),
      /WARN .*the health server listens on 0\.0\.0\.0 \(--health-host \(health_host\)\), beyond loopback: anyone who can reach that address can read \/health\/\* \(plugin names and their tools, request counters\) and \/metrics \(when metrics are on\) without authentication/,
    );
    const quiet = await factoryOn(t, '127.0.0.1', '127.0.0.1');
    assert.doesNotMatch(quiet.run.stderr(), /health server listens/);
  });
});
