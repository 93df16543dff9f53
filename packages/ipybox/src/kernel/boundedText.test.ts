import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { BoundedText } from './boundedText.ts';
import type { JupyterMessage } from './messages.ts';
import { OutputCollector } from './output.ts';

const lines = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => `${from + i}\n`).join('');

describe('bounded output text', () => {
  test('under the bound nothing changes', () => {
    const text = new BoundedText({ max: 100 });
    text.append('a'.repeat(60));
    text.append('b'.repeat(60));
    assert.equal(text.text, 'a'.repeat(60) + 'b'.repeat(60));
    assert.equal(text.omitted, undefined);
  });

  test('past the bound the start and the latest stay; counts of what went are exact', () => {
    const text = new BoundedText({ max: 1000 });
    const all = lines(0, 5000);
    for (let i = 0; i < 5000; i += 1) text.append(`${i}\n`);
    assert.ok(text.text.length <= 1250);
    const omitted = text.omitted;
    assert.ok(omitted);
    assert.equal(omitted.at, 500);
    assert.equal(text.text.slice(0, 500), all.slice(0, 500));
    assert.ok(all.endsWith(text.text.slice(500)));
    assert.equal(omitted.chars, all.length - text.text.length);
    const dropped = all.slice(500, all.length - (text.text.length - 500));
    assert.equal(omitted.lines, dropped.split('\n').length - 1);
  });

  test('with a marker, the kept text says what went, once, where it went', () => {
    const text = new BoundedText({ max: 1000, marker: true });
    for (let i = 0; i < 20; i += 1) text.append('x'.repeat(100));
    const markers = text.text.match(
      /\[… \d+ characters \(0 line ends\) of output not kept: more than 1000 …\]/g,
    );
    assert.equal(markers?.length, 1);
    assert.ok(text.text.startsWith(`${'x'.repeat(500)}\n[… `));
    assert.ok(text.text.length < 1400);
  });

  test('a collector keeps text, stdout and stderr bounded; text carries the omitted counts', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'ipybox-bounded-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const collector = new OutputCollector(dir, undefined, { maxKeptChars: 1000 });
    const stream = (name: string, text: string) =>
      collector.handle({
        header: { msg_type: 'stream' },
        content: { name, text },
      } as unknown as JupyterMessage);
    for (let i = 0; i < 3000; i += 1) stream(i % 2 ? 'stderr' : 'stdout', `${i}\n`);
    const output = collector.output;
    assert.ok(
      output.text.length <= 1250 && output.stdout.length < 1400 && output.stderr.length < 1400,
    );
    assert.ok(output.text.startsWith('0\n1\n2\n'));
    assert.ok(output.text.endsWith('2998\n2999\n'));
    assert.equal(output.omitted?.chars, lines(0, 3000).length - output.text.length);
    assert.match(output.stdout, /^0\n2\n4\n[\s\S]*of output not kept[\s\S]*2998\n$/);
  });
});
