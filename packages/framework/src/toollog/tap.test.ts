/**
 * `ToolCallTap`: subscribers and late readers get each call redacted as the file loggers redact
 * it, off the call's path, in order.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type TappedCall, ToolCallTap } from './tap.ts';

test('the tap hands out redacted calls, keeps the last few, and survives a broken subscriber', async () => {
  const tap = new ToolCallTap({ keep: 2, redaction: { redact_keys: ['pin'] } });
  const seen: TappedCall[] = [];
  tap.subscribe(() => {
    throw new Error('a broken subscriber');
  });
  tap.subscribe((call) => seen.push(call));

  tap.logCall('login', { user: 'ann', password: 'hunter2-secret', pin: '1234' }, 'ok', true, {
    outcome: 'ok',
    sessionId: 's1',
    durationMs: 5,
  });
  assert.equal(seen.length, 0, 'delivered off the call path');
  tap.logCall('a', {}, undefined, false, { outcome: 'rejected' });
  tap.logCall('b', {}, undefined, false);
  await tap.flush();

  assert.deepEqual(
    seen.map((c) => [c.seq, c.tool, c.outcome]),
    [
      [1, 'login', 'ok'],
      [2, 'a', 'rejected'],
      [3, 'b', 'error'],
    ],
  );
  const text = JSON.stringify(seen[0].params);
  assert.ok(!text.includes('hunter2-secret'), text);
  assert.ok(!text.includes('1234'), text);
  assert.match(text, /ann/);
  assert.equal(seen[0].sessionId, 's1');
  assert.deepEqual(
    tap.recent().map((c) => c.tool),
    ['a', 'b'],
  );

  await tap.close();
  tap.logCall('c', {}, undefined, true);
  await tap.flush();
  assert.equal(seen.length, 3, 'nothing after close');
});
