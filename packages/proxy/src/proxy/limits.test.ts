/**
 * Limits keyed on identity, end to end: a real `mcp-proxy` over HTTP with OAuth against a real
 * (local) introspection server and `limits:` configured. Alice runs out of her rate and reads
 * a JSON-RPC error naming the limit and when to retry, while Bob still calls; a new session
 * does not give Alice a new budget; the refusals are logged and counted per principal.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { connectHttp, startHttpProxy, startIntrospectionServer, waitFor } from '@mcpbox/test-utils';
import { ProtocolError } from '@modelcontextprotocol/client';
import { testdir } from './__fixtures__/testdir.ts';

const hour = () => Math.floor(Date.now() / 1000) + 3600;

test('alice exceeds her rate and is told which limit and when; bob still calls; a new session changes nothing', async (t) => {
  const as = await startIntrospectionServer();
  t.after(() => as.close());
  for (const who of ['alice', 'bob']) {
    as.tokens.set(`${who}-token`, {
      active: true,
      sub: who,
      client_id: 'limits-test',
      exp: hour(),
    });
  }
  const dir = testdir(
    {
      'proxy.yaml': [
        'metrics: true',
        `oauth_server_url: ${as.url}`,
        'oauth_public_url: http://127.0.0.1/mcp',
        'limits:',
        '  per_principal: { rate: 3/minute }',
        '',
      ].join('\n'),
    },
    t,
  );
  const proxy = await startHttpProxy(t, ['-c', join(dir, 'proxy.yaml'), '-a', 'echo'], {
    env: { HOME: dir },
    timeoutMs: 60_000,
  });
  const connect = (who: string) =>
    connectHttp(t, proxy.mcpUrl, { name: 'limits-test', token: `${who}-token` });
  const echo = (client: Awaited<ReturnType<typeof connect>>) =>
    client.callTool({ name: 'echo', arguments: { message: 'hi' } });

  const alice = await connect('alice');
  for (let i = 0; i < 3; i++) assert.equal((await echo(alice)).isError, undefined);
  const refusal = await echo(alice).then(
    () => assert.fail('the fourth call in a minute is refused'),
    (error: unknown) => error,
  );
  assert.ok(refusal instanceof ProtocolError, String(refusal));
  assert.equal(refusal.code, -32029);
  assert.match(
    refusal.message,
    /rate limit of 3 calls per minute for sub:alice reached; retry in \d+ s$/,
  );
  const data = refusal.data as Record<string, unknown>;
  assert.equal(data.limit, 'rate');
  assert.equal(data.principal, 'sub:alice');
  assert.ok(
    typeof data.retryAfterMs === 'number' && data.retryAfterMs > 0,
    String(data.retryAfterMs),
  );

  const bob = await connect('bob');
  assert.equal((await echo(bob)).isError, undefined, 'bob has a budget of his own');

  await alice.close();
  const again = await connect('alice');
  await assert.rejects(echo(again), { code: -32029, message: /for sub:alice reached/ });

  const metrics = await (await fetch(`${proxy.healthUrl}/metrics`)).text();
  assert.match(
    metrics,
    /^mcpbox_principal_calls_total\{principal="sub:alice",outcome="admitted"\} 3$/m,
  );
  assert.match(
    metrics,
    /^mcpbox_principal_calls_total\{principal="sub:alice",outcome="refused"\} 2$/m,
  );
  assert.match(metrics, /^mcpbox_limit_refusals_total\{principal="sub:alice",limit="rate"\} 2$/m);
  assert.match(metrics, /^mcpbox_principal_cost_total\{principal="sub:bob"\} 1$/m);
  assert.match(
    metrics,
    /^mcpbox_tool_calls_total\{tool="echo",plugin="echo",outcome="rejected"\} 2$/m,
  );

  // The tool-call log has every call, the refused ones as `rejected`, with whose they were.
  const logFile = join(dir, '.mcp_proxy', 'logs', 'tool_calls.jsonl');
  const lines = () =>
    existsSync(logFile) ? readFileSync(logFile, 'utf8').trim().split('\n').filter(Boolean) : [];
  await waitFor(() => lines().length >= 6, 'six logged calls');
  const logged = lines().map((line) => JSON.parse(line) as { outcome: string; principal: string });
  assert.deepEqual(
    logged.map((e) => [e.principal, e.outcome]),
    [
      ['sub:alice', 'ok'],
      ['sub:alice', 'ok'],
      ['sub:alice', 'ok'],
      ['sub:alice', 'rejected'],
      ['sub:bob', 'ok'],
      ['sub:alice', 'rejected'],
    ],
  );
});
