/**
 * The real `mcp-client` bin over HTTP: server-everything's Streamable HTTP and HTTP+SSE modes
 * (the SSE one reached through the automatic fallback), a server that dies and comes back, and
 * bearer tokens against a small SDK server that checks them.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { freePort } from '@mcpbox/test-utils';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { McpServer } from '@modelcontextprotocol/server';
import {
  killGroup,
  runScript,
  startClient,
  startEverythingHttp,
} from './__fixtures__/driveClient.ts';

test('Streamable HTTP: list, call and info against server-everything', async (t) => {
  const port = await freePort();
  await startEverythingHttp(t, 'streamableHttp', port);
  const url = `http://127.0.0.1:${port}/mcp`;
  const run = await runScript(t, [url], ['tools', 'echo over http', 'prompts', 'info', 'quit']);
  assert.equal(run.code, 0, run.output);
  assert.match(
    run.stdout,
    new RegExp(`Connected to mcp-servers/everything 2\\.0\\.0 via Streamable HTTP ${url}`),
  );
  assert.match(run.stdout, /echo\(message\)/);
  assert.match(run.stdout, /Echo: over http/);
  assert.match(run.stdout, /args-prompt\(city, state\?\)/);
  assert.match(run.stdout, /Connected via: Streamable HTTP/);
});

test('an SSE-only server is reached through the automatic fallback', async (t) => {
  const port = await freePort();
  await startEverythingHttp(t, 'sse', port);
  const url = `http://127.0.0.1:${port}/sse`;
  const run = await runScript(t, [url], ['echo over sse', 'info']);
  assert.equal(run.code, 0, run.output);
  assert.match(run.stdout, new RegExp(`via HTTP\\+SSE ${url}`));
  assert.match(run.stdout, /Echo: over sse/);
});

test('an HTTP server that dies: a message, the prompt comes back, reconnect after restart', async (t) => {
  const port = await freePort();
  const first = await startEverythingHttp(t, 'streamableHttp', port);
  const client = startClient(t, [`http://127.0.0.1:${port}/mcp`]);
  await client.waitFor('Connected to mcp-servers/everything');
  client.send('echo one');
  await client.waitFor('Echo: one');

  killGroup(first);
  await once(first, 'exit');
  client.send('echo two');
  await client.waitFor(/Error: .*fetch failed.*"reconnect" tries again/);
  client.send('help');
  await client.waitFor('Commands:');

  await startEverythingHttp(t, 'streamableHttp', port);
  client.send('reconnect');
  await client.waitFor('Connected to mcp-servers/everything');
  client.send('echo three');
  await client.waitFor('Echo: three');
  client.send('q');
  // Piped input is a script, and `echo two` failed in it.
  assert.equal(await client.exited, 1);
  assert.match(client.stderr(), /mcp-client: 1 command failed \(exit code 1\)\./);
});

/** A stateless Streamable HTTP server that answers only `Authorization: Bearer <token>`. */
async function startGuardedServer(t: import('node:test').TestContext, token: string) {
  const seen: string[] = [];
  const http = createServer(async (req, res) => {
    seen.push(req.headers.authorization ?? '');
    if (req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401, { 'content-type': 'text/plain' }).end('unauthorized');
      return;
    }
    const mcp = new McpServer({ name: 'guarded', version: '1.0.0' });
    mcp.registerTool('whoami', {}, async () => ({
      content: [{ type: 'text', text: 'authorized' }],
    }));
    const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      transport.close();
      mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res);
  });
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  t.after(() => http.close());
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`, seen };
}

test('--token and MCP_TOKEN are sent as a bearer token; a refused one is explained, not shown', async (t) => {
  const token = 's3cret-token-value';
  const { url, seen } = await startGuardedServer(t, token);

  const flag = await runScript(t, [url, '--token', token], ['whoami']);
  assert.equal(flag.code, 0, flag.output);
  assert.match(flag.stdout, /authorized/);
  assert.ok(
    seen.every((h) => h === `Bearer ${token}`),
    'every request carried the token',
  );

  const env = await runScript(t, [url], ['whoami'], { ...process.env, MCP_TOKEN: token });
  assert.equal(env.code, 0, env.output);
  assert.match(env.stdout, /authorized/);

  const wrong = await runScript(t, [url, '--token', 'not-the-token'], ['whoami']);
  assert.equal(wrong.code, 1);
  assert.match(wrong.stderr, /could not connect: .*401.*check --token or MCP_TOKEN/);
  assert.doesNotMatch(wrong.output, /not-the-token/);
});

test('a URL where nothing listens fails at start with the network reason', async (t) => {
  const port = await freePort();
  const run = await runScript(t, [`http://127.0.0.1:${port}/mcp`], []);
  assert.equal(run.code, 1);
  assert.match(run.stderr, /could not connect: .*ECONNREFUSED/);
});
