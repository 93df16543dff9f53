/**
 * A real `mcp-proxy` process over HTTP with the framework's security layer configured: OAuth
 * against a real (local) introspection server, a TOTP gate group and `metrics: true`. The gate
 * tools appear, a gated tool is blocked until unlocked, `/metrics` answers on the health port,
 * and the JSONL tool-call log also records the blocked call (security is the first interceptor).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
// Test helpers of the framework (not part of its public API): a real RFC 7662 endpoint, TOTP codes.
import {
  codeAt,
  connectHttp,
  newSecret,
  startHttpProxy,
  startIntrospectionServer,
} from '@mcpbox/test-utils';
import type { Client } from '@modelcontextprotocol/client';
import { testdir } from './__fixtures__/testdir.ts';

const text = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as Array<{ type: string; text?: string }>)[0]?.text ?? '';

test('mcp-proxy enforces OAuth, gates tools, serves /metrics and logs blocked calls', async (t) => {
  const as = await startIntrospectionServer();
  t.after(() => as.close());
  as.tokens.set('good-token', {
    active: true,
    client_id: 'security-test',
    scope: 'user',
    exp: Math.floor(Date.now() / 1000) + 3600,
  });
  const secret = newSecret();
  const dir = testdir(
    {
      'proxy.yaml': [
        'metrics: true',
        `oauth_server_url: ${as.url}`,
        'oauth_public_url: http://127.0.0.1/mcp',
        'gate:',
        '  groups:',
        '    ops:',
        '      secret_ref: MCP_PROXY_TEST_GATE_OPS',
        '      tools: [echo_upper]',
        '',
      ].join('\n'),
    },
    t,
  );
  const proxy = await startHttpProxy(t, ['-c', join(dir, 'proxy.yaml'), '-a', 'echo'], {
    env: { HOME: dir, MCP_PROXY_TEST_GATE_OPS: secret },
    timeoutMs: 60_000,
  });
  const connect = (token?: string) =>
    connectHttp(t, proxy.mcpUrl, { name: 'security-test', token });

  await assert.rejects(connect(), { status: 401, message: /Missing Authorization header/ });
  await assert.rejects(connect('stolen-token'), { status: 401, message: /Token is not active/ });

  const client = await connect('good-token');
  const tools = (await client.listTools()).tools.map((tool) => tool.name);
  for (const name of ['gate_lock', 'gate_status', 'gate_unlock', 'echo', 'echo_upper']) {
    assert.ok(tools.includes(name), `${name} is listed: ${tools.join(', ')}`);
  }

  const locked = await client.callTool({ name: 'echo_upper', arguments: { message: 'x' } });
  assert.equal(locked.isError, true);
  assert.match(text(locked), /^Group 'ops' is locked\. Call gate_unlock\(group='ops'/);
  assert.equal(
    text(await client.callTool({ name: 'echo', arguments: { message: 'free' } })),
    'free',
  );
  const code = codeAt(secret, Date.now());
  await client.callTool({ name: 'gate_unlock', arguments: { group: 'ops', code } });
  assert.equal(
    text(await client.callTool({ name: 'echo_upper', arguments: { message: 'x' } })),
    'X',
  );

  const metrics = await (await fetch(`${proxy.healthUrl}/metrics`)).text();
  assert.match(metrics, /^mcpbox_tool_calls_total\{tool="echo",plugin="echo",outcome="ok"\} 1$/m);
  assert.match(metrics, /^mcpbox_gate_blocked_calls_total\{group="ops"\} 1$/m);
  assert.match(metrics, /^mcpbox_gate_unlocks_total\{group="ops"\} 1$/m);

  // One log line per call, the blocked one included; the TOTP code never reaches the log.
  const logFile = join(dir, '.mcp_proxy', 'logs', 'tool_calls.jsonl');
  const entries = async () => {
    for (let i = 0; i < 200; i++) {
      if (existsSync(logFile) && (readFileSync(logFile, 'utf8').match(/\n/g)?.length ?? 0) >= 4) {
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return readFileSync(logFile, 'utf8');
  };
  const log = await entries();
  assert.deepEqual(
    log
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .map((e: { tool: string; outcome: string }) => [e.tool, e.outcome]),
    [
      ['echo_upper', 'rejected'],
      ['echo', 'ok'],
      ['gate_unlock', 'ok'],
      ['echo_upper', 'ok'],
    ],
  );
  assert.ok(!log.includes(code), 'the TOTP code is redacted from the tool-call log');
});
