/**
 * The tracing helpers against the real SDK and a real OTLP/HTTP receiver, in this test's own
 * process (the SDK's providers are process-wide): outgoing calls carry the current span's
 * context as headers and in `_meta`, and the sample ratio applies to new traces only.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { clientTraceparent, startOtlpReceiver } from '@mcpbox/test-utils';
import {
  currentTraceContext,
  fetchWithTraceContext,
  flushTracing,
  inSpan,
  startTracing,
  stopTracing,
  tracingEnabled,
  withTraceMeta,
} from './tracing.ts';

test('without tracing: the helpers change nothing', async () => {
  assert.equal(tracingEnabled(), false);
  const params = { name: 'x' };
  assert.equal(withTraceMeta(params), params);
  assert.deepEqual(currentTraceContext(), {});
  assert.equal(await inSpan({ name: 'n', kind: 'internal' }, async () => 7), 7);
});

test('outgoing HTTP headers and _meta carry the current span; the ratio samples new traces only', async (t) => {
  const receiver = await startOtlpReceiver(t);
  const seen: (string | undefined)[] = [];
  const peer = createServer((req, res) => {
    seen.push(req.headers.traceparent as string | undefined);
    res.end('ok');
  });
  await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => peer.close(() => resolve())));
  const peerUrl = `http://127.0.0.1:${(peer.address() as AddressInfo).port}/`;
  const settings = {
    tracesUrl: `${receiver.endpoint}/v1/traces`,
    serviceName: 'unit',
    sampleRatio: 1,
    exportDelayMs: 50,
  };
  t.after(() => stopTracing());

  await startTracing(settings);
  const caller = clientTraceparent();
  const meta = await inSpan(
    { name: 'outer', kind: 'server', parent: { traceparent: caller.traceparent } },
    async () => {
      await (await fetchWithTraceContext(peerUrl)).text();
      return withTraceMeta({ name: 'x', _meta: { progressToken: 1 } })._meta as Record<
        string,
        unknown
      >;
    },
  );
  await fetchWithTraceContext(peerUrl); // outside any span: no header
  await flushTracing();
  const [outer] = await receiver.waitFor((spans) => spans.some((s) => s.name === 'outer'));
  assert.equal(outer.traceId, caller.traceId);
  assert.equal(outer.parentSpanId, caller.spanId);
  const ours = `00-${caller.traceId}-${outer.spanId}-01`;
  assert.deepEqual(seen, [ours, undefined]);
  assert.equal(meta.traceparent, ours);
  assert.equal(meta.progressToken, 1, '_meta keeps what it had');

  // Ratio 0: a new trace is not recorded, a caller's sampled one still is.
  await stopTracing();
  await startTracing({ ...settings, sampleRatio: 0 });
  await inSpan({ name: 'unsampled root', kind: 'server' }, async () => undefined);
  const continued = clientTraceparent();
  await inSpan(
    { name: 'continued', kind: 'server', parent: { traceparent: continued.traceparent } },
    async () => undefined,
  );
  await flushTracing();
  await receiver.waitFor((spans) => spans.some((s) => s.name === 'continued'));
  assert.ok(!receiver.spans().some((s) => s.name === 'unsampled root'));
});

test('a span ends with the error of what it wrapped, which still reaches the caller', async (t) => {
  const receiver = await startOtlpReceiver(t);
  t.after(() => stopTracing());
  await startTracing({
    tracesUrl: `${receiver.endpoint}/v1/traces`,
    serviceName: 'unit',
    sampleRatio: 1,
    exportDelayMs: 50,
  });
  await assert.rejects(
    inSpan({ name: 'throws', kind: 'internal' }, async () => {
      throw new TypeError('bad');
    }),
    /bad/,
  );
  await inSpan(
    { name: 'tool error', kind: 'internal' },
    async () => ({ isError: true }),
    (result) => (result.isError ? 'tool_error' : undefined),
  );
  await flushTracing();
  const spans = await receiver.waitFor((all) => all.length >= 2);
  const thrown = spans.find((s) => s.name === 'throws');
  assert.equal(thrown?.status, 2);
  assert.equal(thrown?.attributes['error.type'], 'TypeError');
  const failed = spans.find((s) => s.name === 'tool error');
  assert.equal(failed?.status, 2);
  assert.equal(failed?.attributes['error.type'], 'tool_error');
});
