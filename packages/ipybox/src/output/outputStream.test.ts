import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ToolContext } from '@mcpbox/framework';
import { outputStreamer } from './outputStream.ts';

/** A handler context that records what would be sent. */
function recordingContext(progressToken: string | undefined) {
  const progress: { progress: number; message?: string }[] = [];
  const logs: unknown[] = [];
  const ctx = {
    mcpReq: { _meta: progressToken === undefined ? {} : { progressToken } },
    reportProgress: async (value: number, _total?: number, message?: string) => {
      progress.push(message === undefined ? { progress: value } : { progress: value, message });
    },
    log: async (_level: string, data: unknown) => {
      logs.push(data);
    },
  } as unknown as ToolContext;
  return { ctx, progress, logs };
}

const stdout = (text: string) => ({ kind: 'stream' as const, name: 'stdout' as const, text });

describe('streamed output', () => {
  test('no progress token: nothing is streamed', () => {
    assert.equal(outputStreamer(recordingContext(undefined).ctx, 100), undefined);
  });

  test('text up to max_output_chars, then one note, then only text-less keep-alives (at most 1/s); never a log copy', (t) => {
    t.mock.timers.enable({ apis: ['Date'], now: 1_000_000 });
    const { ctx, progress, logs } = recordingContext('tok');
    const stream = outputStreamer(ctx, 10);
    assert.ok(stream);
    stream(stdout('abcd'));
    stream(stdout('efghijklmnop'));
    for (let i = 0; i < 1000; i += 1) stream(stdout('more output\n'));
    t.mock.timers.tick(1000);
    stream(stdout('later\n'));
    stream(stdout('later\n'));
    assert.deepEqual(progress, [
      { progress: 1, message: 'abcd' },
      {
        progress: 2,
        message:
          'efghij\n[streamed output stops here: it passed max_output_chars=10; the result shows its head and tail]\n',
      },
      { progress: 1003 },
    ]);
    assert.deepEqual(logs, []);
  });

  test('images are announced by path within the budget; empty chunks send nothing', () => {
    const { ctx, progress } = recordingContext('tok');
    const stream = outputStreamer(ctx, 100);
    assert.ok(stream);
    stream(stdout(''));
    stream({
      kind: 'display',
      data: { 'image/png': 'x' },
      images: [{ path: '/ws/images/a.png', mimeType: 'image/png', data: Buffer.from('x') }],
    });
    stream({ kind: 'execute_result', data: { 'text/plain': '42' }, images: [] });
    assert.deepEqual(
      progress.map((p) => p.message),
      ['[image /ws/images/a.png]\n', '42\n'],
    );
  });
});
