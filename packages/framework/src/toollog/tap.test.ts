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

test('the kept calls stay within maxBytes; params too long as JSON are kept as their JSON, cut', async () => {
  const tap = new ToolCallTap({ keep: 1000, maxBytes: 20_000, maxParamChars: 300 });
  const seen: TappedCall[] = [];
  tap.subscribe((call) => seen.push(call));
  const list = Array.from({ length: 10_000 }, (_, i) => i);
  for (let i = 0; i < 200; i++) tap.logCall('bulk', { i, list }, undefined, true);
  await tap.flush();

  assert.equal(seen.length, 200, 'every call is still handed to subscribers');
  const kept = tap.recent();
  assert.ok(tap.bytes <= 20_000, `${tap.bytes} bytes kept`);
  assert.equal(
    tap.bytes,
    kept.reduce((sum, c) => sum + Buffer.byteLength(JSON.stringify(c)), 0),
  );
  assert.ok(kept.length > 10 && kept.length < 200, `${kept.length} calls kept`);
  assert.equal(kept.at(-1)?.seq, 200, 'the newest calls are the ones kept');
  const params = kept.at(-1)?.params as string;
  assert.equal(typeof params, 'string');
  assert.match(params, /^\{"i":199,"list":\[0,1,2,3,/);
  assert.match(params, /… \(\+\d+ chars\)$/);
  assert.ok(params.length < 330, params);
});
