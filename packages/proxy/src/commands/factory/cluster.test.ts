/**
 * mcp-factory in cluster mode, two real replicas on one real redis-server: a resource update a
 * plugin announces on one replica reaches the subscribers of both eras on the other (the SDK's
 * `ServerEventBus` over Redis pub/sub), and /health/ready follows Redis.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  FACTORY_BIN,
  runServerBin,
  startRedisServer,
  TEST_CLUSTER_SECRET,
  waitFor,
} from '@mcpbox/test-utils';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { testdir } from '../../proxy/__fixtures__/testdir.ts';

const MEMO = `
let text = 'first';
export function register(server) {
  server.registerResource('note', 'memo://note', { mimeType: 'text/plain' }, async () => ({
    contents: [{ uri: 'memo://note', text }],
  }));
  server.registerTool('memo_write', { description: 'changes the note' }, async () => {
    text = 'changed';
    server.notifyResourceUpdated('memo://note');
    return 'written';
  });
  // Plugins that share state of their own get the host's link.
  server.registerTool('memo_cluster', { description: 'the host link' }, async () =>
    server.cluster ? server.cluster.key('memo') + ' ' + server.cluster.status().connected : 'none',
  );
}
`;

type After = { after(fn: () => unknown): void };

async function factory(t: After, redisUrl: string, home: string) {
  const proc = await runServerBin(
    t,
    FACTORY_BIN,
    ['-p', 'memo', '-d', join(home, 'plugins'), '--http', '0'],
    /MCP endpoint:\s+(\S+)[\s\S]*Health:\s+(\S+)\/health/,
    { env: { HOME: home, MCP_REDIS_URL: redisUrl, MCP_CLUSTER_SECRET: TEST_CLUSTER_SECRET } },
  );
  assert.ok(proc.match, proc.stderr());
  return { url: proc.match[1]!, health: proc.match[2]!, stderr: proc.stderr };
}

async function client(t: After, url: string, era: 'legacy' | 'modern') {
  const updates: string[] = [];
  const c = new Client(
    { name: `memo-${era}`, version: '1.0.0' },
    { versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: '2026-07-28' } } },
  );
  c.setNotificationHandler('notifications/resources/updated', (notification) => {
    updates.push(notification.params.uri);
  });
  await c.connect(new StreamableHTTPClientTransport(new URL(url)));
  t.after(() => c.close());
  return { client: c, updates };
}

test('mcp-factory replicas: a resource update on A reaches 2025 and 2026 subscribers on B', async (t) => {
  const redis = await startRedisServer(t);
  const home = testdir({ 'plugins/memo.js': MEMO }, t);
  const a = await factory(t, redis.url, home);
  const b = await factory(t, redis.url, home);

  const legacy = await client(t, b.url, 'legacy');
  await legacy.client.subscribeResource({ uri: 'memo://note' });
  const modern = await client(t, b.url, 'modern');
  const subscription = await modern.client.listen({ resourceSubscriptions: ['memo://note'] });
  t.after(() => subscription.close());
  assert.deepEqual(subscription.honoredFilter.resourceSubscriptions, ['memo://note']);

  const writer = await client(t, a.url, 'modern');
  const link = await writer.client.callTool({ name: 'memo_cluster', arguments: {} });
  assert.match(JSON.stringify(link.content), /mcpbox:memo true/);
  const written = await writer.client.callTool({ name: 'memo_write', arguments: {} });
  assert.match(JSON.stringify(written.content), /written/);
  await waitFor(() => legacy.updates.includes('memo://note'), 'the 2025 session on B');
  await waitFor(() => modern.updates.includes('memo://note'), 'the 2026 listen stream on B');

  // Readiness follows Redis.
  assert.equal((await fetch(`${b.health}/health/ready`)).status, 200);
  await redis.stop();
  await waitFor(
    async () => (await fetch(`${b.health}/health/ready`)).status === 503,
    'B not ready without Redis',
  );
  const body = (await (await fetch(`${b.health}/health/ready`)).json()) as { error: string };
  assert.match(body.error, /Redis at .* unreachable/);
  await redis.start();
  await waitFor(
    async () => (await fetch(`${b.health}/health/ready`)).status === 200,
    'B ready again',
    60_000,
  );
});
