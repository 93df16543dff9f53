import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { codeAt, newSecret } from '@mcpbox/test-utils';
import { publishRejection } from '../auth/introspection.ts';
import { createGate } from '../gate/gate.ts';
import { recordingLogger, testClock } from '../gate/testing.ts';
import { ServerMetrics } from './metrics.ts';

test('tool calls, latency, sessions, gate and OAuth events appear in the exposition text', async (t) => {
  const metrics = new ServerMetrics();
  t.after(() => metrics.close());
  metrics.recordToolCall({ tool: 'echo', plugin: 'echo', outcome: 'ok', seconds: 0.003 });
  metrics.recordToolCall({ tool: 'echo', plugin: 'echo', outcome: 'ok', seconds: 0.2 });
  metrics.recordToolCall({ tool: 'rm', plugin: 'shell', outcome: 'rejected', seconds: 0.0001 });
  let sessions = 2;
  metrics.trackSessions(() => sessions);

  const secret = newSecret();
  const clock = testClock();
  const gate = createGate(
    { groups: { shell: { secret_ref: 'S' } } },
    { env: { S: secret }, clock: clock.now, logger: recordingLogger() },
  );
  await gate.unlock('shell', codeAt(secret, clock.now()));
  for (let i = 0; i < 5; i++) await gate.unlock('shell', '000000');
  publishRejection('missing_token');
  publishRejection('missing_token');

  // Served over HTTP the way the health server mounts it.
  const http = createServer((req, res) => void metrics.handler(req, res));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => http.close(() => resolve())));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/metrics`;
  let res = await fetch(url);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  let text = await res.text();
  const has = (line: string) => assert.ok(text.split('\n').includes(line), `missing: ${line}`);
  has('mcpbox_tool_calls_total{tool="echo",plugin="echo",outcome="ok"} 2');
  has('mcpbox_tool_calls_total{tool="rm",plugin="shell",outcome="rejected"} 1');
  has('mcpbox_tool_call_duration_seconds_bucket{le="0.005",tool="echo",plugin="echo"} 1');
  has('mcpbox_tool_call_duration_seconds_count{tool="echo",plugin="echo"} 2');
  has('mcpbox_sessions_open 2');
  has('mcpbox_gate_unlocks_total{group="shell"} 1');
  has('mcpbox_gate_lockouts_total{group="shell"} 1');
  has('mcpbox_oauth_rejections_total{reason="missing_token"} 2');
  assert.match(text, /^process_cpu_user_seconds_total /m);

  sessions = 0;
  res = await fetch(url);
  text = await res.text();
  has('mcpbox_sessions_open 0');
});

test('two instances keep separate counts; a closed instance stops counting events', async () => {
  const a = new ServerMetrics({ processMetrics: false });
  const b = new ServerMetrics({ processMetrics: false });
  a.recordToolCall({ tool: 't', plugin: 'p', outcome: 'error', seconds: 1 });
  b.close();
  publishRejection('inactive');
  a.close();
  const [ta, tb] = [await a.text(), await b.text()];
  assert.match(ta, /^mcpbox_tool_calls_total\{tool="t",plugin="p",outcome="error"\} 1$/m);
  assert.doesNotMatch(tb, /mcpbox_tool_calls_total\{/);
  assert.match(ta, /^mcpbox_oauth_rejections_total\{reason="inactive"\} 1$/m);
  assert.doesNotMatch(tb, /mcpbox_oauth_rejections_total\{/);
});
