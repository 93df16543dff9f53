// UpstreamPool against real upstream processes (the upstream-tools fixture over stdio).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isAlive, killAll, waitUntilGone } from '@mcpbox/test-utils';
import { fixtureParams } from '../__fixtures__/upstream-processes.ts';
import type { Logger } from '../logging/index.ts';
import { UpstreamPool } from './pool.ts';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const pidOf = async (pool: UpstreamPool, name: string) => {
  const result = await pool.get(name).callTool('whoami', {});
  return JSON.parse((result.content as Array<{ text: string }>)[0].text).pid as number;
};

test('UpstreamPool: one cached connection per name, closeAll keeps definitions', async (t) => {
  const pool = new UpstreamPool({ logger: silent });
  const started: number[] = [];
  t.after(async () => {
    await pool.closeAll();
    killAll(await waitUntilGone(started, 5_000));
  });
  assert.throws(() => pool.get('a'), {
    code: 'UNKNOWN_UPSTREAM',
    message: "unknown upstream 'a' (registered: (none))",
  });
  await pool.define('a', fixtureParams('upstream-tools.ts'));
  await pool.define('b', fixtureParams('upstream-tools.ts'));
  assert.deepEqual(pool.names(), ['a', 'b']);
  assert.equal(pool.get('a'), pool.get('a'), 'the same connection object each time');

  const a1 = await pidOf(pool, 'a');
  const b1 = await pidOf(pool, 'b');
  started.push(a1, b1);
  assert.notEqual(a1, b1);
  assert.equal(await pidOf(pool, 'a'), a1, 'cached: no second process');

  // Same params again: the connection stays.
  await pool.define('a', fixtureParams('upstream-tools.ts'));
  assert.equal(await pidOf(pool, 'a'), a1);
  // Different params: the old process is ended, the next use starts the new definition.
  await pool.define('a', fixtureParams('upstream-tools.ts', { CHANGED: '1' }));
  assert.deepEqual(await waitUntilGone([a1], 10_000), []);
  const a2 = await pidOf(pool, 'a');
  started.push(a2);
  assert.notEqual(a2, a1);

  await pool.closeAll();
  assert.deepEqual(await waitUntilGone([a2, b1], 10_000), []);
  const b2 = await pidOf(pool, 'b');
  started.push(b2);
  assert.ok(isAlive(b2), 'restarted lazily after closeAll');

  await pool.remove('b');
  assert.deepEqual(await waitUntilGone([b2], 10_000), []);
  assert.throws(() => pool.get('b'), {
    code: 'UNKNOWN_UPSTREAM',
    message: "unknown upstream 'b' (registered: 'a')",
  });
});
