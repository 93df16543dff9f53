/**
 * Limits across replicas: two real `mcp-proxy` replicas on one real `redis-server`, OAuth
 * against a real (local) introspection server. Alice's daily quota is one budget whichever
 * replica she calls, and it survives a restart of a replica.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  connectHttp,
  type ProxyProcess,
  startIntrospectionServer,
  startProxy,
  startRedisServer,
  TEST_CLUSTER_SECRET,
} from '@mcpbox/test-utils';
import { testdir } from '../proxy/__fixtures__/testdir.ts';

type After = { after(fn: () => unknown): void };

test('two replicas share alice’s daily quota, and a restarted replica still knows it is spent', async (t) => {
  const redis = await startRedisServer(t);
  const as = await startIntrospectionServer();
  t.after(() => as.close());
  const exp = Math.floor(Date.now() / 1000) + 3600;
  as.tokens.set('alice-token', { active: true, sub: 'alice', client_id: 'limits', exp });
  as.tokens.set('bob-token', { active: true, sub: 'bob', client_id: 'limits', exp });
  const home = testdir(
    {
      'proxy.yaml': [
        `oauth_server_url: ${as.url}`,
        'oauth_public_url: http://127.0.0.1/mcp',
        'limits:',
        '  per_principal: { daily: 3 }',
        '',
      ].join('\n'),
    },
    t,
  );
  const replica = async (t: After): Promise<ProxyProcess & { mcpUrl: string }> => {
    const proxy = await startProxy(
      ['--http', '0', '--mgmt-port', '0', '-c', join(home, 'proxy.yaml'), '-a', 'echo'],
      {
        env: { HOME: home, MCP_REDIS_URL: redis.url, MCP_CLUSTER_SECRET: TEST_CLUSTER_SECRET },
        timeoutMs: 60_000,
      },
    );
    t.after(() => proxy.stop());
    return proxy as ProxyProcess & { mcpUrl: string };
  };
  const echo = async (proxy: { mcpUrl: string }, who: string) => {
    const client = await connectHttp(t, proxy.mcpUrl, { token: `${who}-token` });
    try {
      return await client.callTool({ name: 'echo', arguments: { message: who } });
    } finally {
      await client.close();
    }
  };

  let a = await replica(t);
  const b = await replica(t);
  assert.equal((await echo(a, 'alice')).isError, undefined);
  assert.equal((await echo(b, 'alice')).isError, undefined);
  assert.equal((await echo(a, 'alice')).isError, undefined);
  const spent = {
    code: -32029,
    message: /daily quota of 3 calls for sub:alice reached; retry in /,
  };
  await assert.rejects(echo(b, 'alice'), spent, 'the fourth call, on the other replica');
  assert.equal((await echo(b, 'bob')).isError, undefined, 'bob’s quota is his own');

  await a.stop();
  a = await replica(t);
  await assert.rejects(echo(a, 'alice'), spent, 'a restarted replica reads the spent quota');
});
