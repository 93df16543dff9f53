/**
 * Test helper: an `UpstreamConnection` that is closed when the test ends, after which every
 * process it started must be gone — the guard and the server's group, and any pids the caller
 * knows of (e.g. a fixture's own start log, probe processes included).
 */
import assert from 'node:assert/strict';
import { descendants, killAll, waitUntilGone } from '@mcpbox/test-utils';
import { UpstreamConnection } from '../client/connection.ts';

export interface TestHooks {
  after: (fn: () => Promise<void> | void) => void;
}

export function openConnection(
  t: TestHooks,
  args: ConstructorParameters<typeof UpstreamConnection>,
  started: () => number[] = () => [],
): UpstreamConnection {
  const connection = new UpstreamConnection(...args);
  const seen = new Set<number>();
  const remember = () => {
    if (connection.pid) {
      for (const pid of [connection.pid, ...descendants(connection.pid)]) seen.add(pid);
    }
  };
  const timer = setInterval(remember, 200);
  t.after(async () => {
    clearInterval(timer);
    remember();
    await connection.close();
    const left = await waitUntilGone([...seen, ...started()], 10_000);
    killAll(left);
    assert.deepEqual(left, [], 'every process the upstream started is gone');
  });
  return connection;
}
