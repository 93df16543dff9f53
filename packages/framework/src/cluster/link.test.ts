import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startRedisServer } from '../__fixtures__/redisServer.ts';
import { freePort } from '../__fixtures__/upstream-processes.ts';
import type { Logger } from '../logging/index.ts';
import { ClusterLink, ClusterUnavailableError } from './link.ts';
import { waitFor } from './testing.ts';

function captureLogger(): { lines: string[]; logger: Logger } {
  const lines: string[] = [];
  const push = (msg: string) => {
    lines.push(msg);
  };
  return { lines, logger: { debug: push, info: push, warn: push, error: push } };
}

test('Redis down at start: a clear error naming the URL (not its password) and what to do', async () => {
  const port = await freePort();
  await assert.rejects(
    ClusterLink.connect({
      redisUrl: `redis://:hunter2@127.0.0.1:${port}`,
      name: 't',
      fallback: 'none',
    }),
    (error: unknown) => {
      assert.ok(error instanceof ClusterUnavailableError);
      assert.match(error.message, new RegExp(`127\\.0\\.0\\.1:${port}`));
      assert.match(error.message, /cluster\.redis_url|MCP_REDIS_URL/);
      assert.match(error.message, /fallback: local/);
      assert.doesNotMatch(error.message, /hunter2/);
      return true;
    },
  );
});

test('publish reaches a subscriber on another link; loss and return are reported once each', async (t) => {
  const redis = await startRedisServer(t);
  const settings = { redisUrl: redis.url, name: 'linktest', fallback: 'none' as const };
  const { lines, logger } = captureLogger();
  const a = await ClusterLink.connect(settings, { logger });
  const b = await ClusterLink.connect(settings);
  t.after(() => Promise.all([a.close(), b.close()]));
  assert.deepEqual(a.status(), { connected: true });
  assert.equal(a.key('plugins', 'set'), 'linktest:plugins:set');

  const received: string[] = [];
  await b.subscribe('events', (message) => received.push(message));
  await a.publish('events', 'hello');
  await waitFor(() => received.includes('hello'), 'the published message');

  let restored = 0;
  a.onRestored(() => {
    restored++;
  });
  await redis.stop();
  await waitFor(() => !a.status().connected, 'the link to notice the loss');
  assert.match(a.status().error ?? '', /unreachable/);
  await assert.rejects(a.publish('events', 'lost'));
  await redis.start();
  await waitFor(() => a.status().connected && restored === 1, 'the link to come back');
  assert.equal(lines.filter((l) => /lost Redis/.test(l)).length, 1, lines.join('\n'));
  assert.equal(lines.filter((l) => / is back; /.test(l)).length, 1, lines.join('\n'));

  // The subscriber resubscribed by itself.
  await waitFor(() => b.status().connected, 'the subscriber to come back');
  await a.publish('events', 'again');
  await waitFor(() => received.includes('again'), 'a message after the return');
});
