import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { firstText } from '@mcpbox/test-utils';
import sharp from 'sharp';
import { CodeExecutionError, KernelError } from '../kernel/errors.ts';
import type { ExecutionResult } from '../kernel/execution.ts';
import {
  type CellResultOptions,
  cellError,
  cellResult,
  MAX_HTML_OUTPUTS,
  MAX_INLINE_IMAGES,
  TRACEBACK_MAX_CHARS,
} from './cellResult.ts';
import { OutputResources } from './outputResources.ts';
import { collapseCarriageReturns, cutMiddle } from './outputText.ts';

const output = (
  text: string,
  images: ExecutionResult['images'] = [],
  extra: Partial<ExecutionResult> = {},
): ExecutionResult => ({
  kind: 'result',
  executionCount: 1,
  text,
  stdout: text,
  stderr: '',
  result: undefined,
  displays: [],
  images,
  ...extra,
});

const owner = { caller: 'anonymous', kernel: 'default' };
const withStore = (maxOutputChars: number, store = new OutputResources()): CellResultOptions => ({
  maxOutputChars,
  maxOutputCharsLimit: 200_000,
  resources: { store, owner },
});

const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i}`).join('\n');

describe('output text', () => {
  test('carriage returns overwrite the line like a terminal; \\r\\n is a line end', () => {
    assert.equal(collapseCarriageReturns('10%\r20%\r100%\ndone'), '100%\ndone');
    assert.equal(collapseCarriageReturns('abcdef\rXY'), 'XYcdef');
    assert.equal(collapseCarriageReturns('bar 99%\r\nnext\r\n'), 'bar 99%\nnext\n');
    assert.equal(collapseCarriageReturns('end\r'), 'end');
  });

  test('cutMiddle keeps head and tail at line boundaries and counts what it removed', () => {
    const text = numbered(1000);
    const cut = cutMiddle(text, 200);
    assert.ok(cut);
    assert.ok(cut.head.startsWith('line 0\n') && cut.head.endsWith('\n'));
    assert.ok(cut.tail.endsWith('line 999') && /^line \d+\n/.test(cut.tail));
    assert.equal(cut.head.length + cut.chars + cut.tail.length, text.length);
    assert.ok(cut.head.length + cut.tail.length <= 200);
    assert.equal(
      cut.lines,
      text.slice(cut.head.length, text.length - cut.tail.length).split('\n').length - 1,
    );
    assert.equal(cutMiddle('short', 10), undefined);
  });
});

describe('execute_ipython_cell results', () => {
  test('a short output is returned as it is', async () => {
    const result = await cellResult(output('hello\n'), withStore(5000));
    assert.deepEqual(result, { content: [{ type: 'text', text: 'hello' }] });
  });

  test('long output keeps head and tail; the marker counts the cut and names the resource', async () => {
    const store = new OutputResources();
    const text = numbered(10_000);
    const result = await cellResult(output(text), withStore(1000, store));
    const shown = firstText(result);
    assert.ok(shown.startsWith('line 0\nline 1\n'));
    assert.ok(shown.endsWith('line 9999'));
    const marker =
      /\[Output truncated: ([\d,]+) characters \(([\d,]+) lines\) cut from the middle to fit max_output_chars=1,000; for more, read the resource (ipybox:\/\/outputs\/\S+) \(all of it\), or run it with a larger max_output_chars \(at most 200,000\)\]/.exec(
        shown,
      );
    assert.ok(marker, shown);
    const [, chars, lines, uri] = marker;
    assert.ok(Number(chars?.replaceAll(',', '')) > text.length - 1000);
    assert.ok(Number(lines?.replaceAll(',', '')) > 9000);
    // The same resource is linked, and reading it gives the whole output.
    assert.deepEqual(result.content.slice(1), [
      {
        type: 'resource_link',
        uri,
        name: 'output.txt',
        mimeType: 'text/plain',
        description: 'The full output of this cell',
        size: text.length,
      },
    ]);
    const read = await store.read(String(uri), 'anonymous');
    assert.deepEqual(read.contents, [{ uri, mimeType: 'text/plain', text }]);
  });

  test('output the kernel layer did not keep counts as cut; the resource marks the place', async () => {
    const store = new OutputResources();
    const head = 'h'.repeat(3000);
    const tail = 't'.repeat(3000);
    const result = await cellResult(
      output(head + tail, [], { omitted: { chars: 50_000_000, lines: 7, at: 3000 } }),
      withStore(100, store),
    );
    const shown = firstText(result);
    // 5900 kept characters and 50 M dropped ones are not shown.
    assert.match(
      shown,
      /\[Output truncated: 50,005,900 characters \(8 lines\) cut from the middle/,
    );
    const link = result.content[1];
    assert.ok(link?.type === 'resource_link');
    const full = (await store.read(link.uri, 'anonymous')).contents[0] as { text: string };
    assert.equal(
      full.text,
      `${head}\n[ipybox did not keep 50,000,000 characters (7 lines) here: the cell printed more than the server keeps]\n${tail}`,
    );
  });

  test('without a store the marker offers a larger max_output_chars only', async () => {
    const result = await cellResult(output('x'.repeat(100)), { maxOutputChars: 10 });
    assert.match(
      firstText(result),
      /cut from the middle to fit max_output_chars=10; for more, run it with a larger max_output_chars\]/,
    );
    assert.equal(result.content.length, 1);
  });

  test('progress bars collapse before counting', async () => {
    const bar = Array.from({ length: 500 }, (_, i) => `\r${i}%`).join('');
    const result = await cellResult(output(`${bar}\ndone\n`), withStore(50));
    assert.equal(firstText(result), '499%\ndone');
  });

  test('an exception after long output: the traceback and the error are always there', async () => {
    const traceback =
      'ZeroDivisionError    Traceback (most recent call last)\nCell In[1], line 3\n----> 3 1/0\n\nZeroDivisionError: division by zero';
    const error = new CodeExecutionError(
      'ZeroDivisionError',
      'division by zero',
      traceback,
      output(numbered(10_000)),
    );
    const result = await cellError(error, withStore(100));
    assert.equal(result.isError, true);
    const shown = firstText(result);
    assert.ok(shown.startsWith('line 0\n'), shown.slice(0, 50));
    assert.ok(shown.endsWith(`line 9999\n\n${traceback}`), shown.slice(-300));
    assert.match(shown, /\[Output truncated: /);
  });

  test('an absurdly long traceback keeps its start and its end', async () => {
    const traceback = `Header\n${'x'.repeat(100_000)}\nValueError: the end`;
    const result = await cellError(
      new CodeExecutionError('ValueError', 'the end', traceback, output('')),
      withStore(100),
    );
    const shown = firstText(result);
    assert.ok(shown.length < TRACEBACK_MAX_CHARS + 200);
    assert.ok(shown.startsWith('Header\n'));
    assert.ok(shown.endsWith('ValueError: the end'));
    assert.match(shown, /\[… [\d,]+ characters of the traceback cut …\]/);
  });

  test('an exception with short output: output, then the traceback', async () => {
    const error = new CodeExecutionError(
      'ValueError',
      'bad',
      'Traceback...\nValueError: bad',
      output('partial\n'),
    );
    assert.deepEqual(await cellError(error, withStore(5000)), {
      isError: true,
      content: [{ type: 'text', text: 'partial\n\nTraceback...\nValueError: bad' }],
    });
  });

  test('a max_output_chars above the server limit is lowered, with a note', async () => {
    const result = await cellResult(output('abc'), {
      maxOutputChars: 100,
      maxOutputCharsLimit: 100,
      requestedChars: 10_000,
    });
    assert.equal(
      firstText(result),
      "abc\n\n[max_output_chars=10000 is above this server's limit; 100 was used]",
    );
  });

  test('text/html results are kept as resources and linked next to the plain text', async () => {
    const store = new OutputResources();
    const html = '<table><tr><td>1</td></tr></table>';
    const result = await cellResult(
      output('   a\n0  1', [], { result: { 'text/plain': '   a\n0  1', 'text/html': html } }),
      withStore(5000, store),
    );
    const link = result.content[1];
    assert.ok(link?.type === 'resource_link', JSON.stringify(result.content));
    assert.equal(link.mimeType, 'text/html');
    assert.equal(
      firstText(result),
      `   a\n0  1\n\nHTML output (its plain-text form is above): ${link.uri}`,
    );
    assert.deepEqual((await store.read(link.uri, 'anonymous')).contents, [
      { uri: link.uri, mimeType: 'text/html', text: html },
    ]);
  });

  test('only the last few text/html outputs of a cell are kept, with a note', async () => {
    const store = new OutputResources();
    const displays = Array.from({ length: 8 }, (_, i) => ({
      'text/plain': `t${i}`,
      'text/html': `<b>${i}</b>`,
    }));
    const result = await cellResult(output('t', [], { displays }), withStore(5000, store));
    const uris = result.content.flatMap((c) => (c.type === 'resource_link' ? [c.uri] : []));
    assert.equal(uris.length, MAX_HTML_OUTPUTS);
    assert.match(firstText(result), /\(the 3 before them are not kept\)$/);
    const last = await store.read(String(uris.at(-1)), 'anonymous');
    assert.equal((last.contents[0] as { text: string }).text, '<b>7</b>');
    assert.equal(store.size, MAX_HTML_OUTPUTS);
  });

  test('images: small ones inline unchanged; paths and full-size resources listed after the text', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'ipybox-cellresult-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#f00' } })
      .png()
      .toBuffer();
    const path = join(dir, 'abc.png');
    await writeFile(path, png);
    const store = new OutputResources();
    const result = await cellResult(
      output('x'.repeat(20), [{ path, mimeType: 'image/png', data: png }]),
      withStore(5, store),
    );
    const shown = firstText(result);
    const uri = /full size: (ipybox:\/\/images\/\S+)\)$/.exec(shown)?.[1];
    assert.ok(uri, shown);
    assert.match(
      shown,
      new RegExp(
        `\\n\\nGenerated images:\\n\\n- \\[abc\\]\\(${path}\\) \\(full size: ipybox://images/`,
      ),
    );
    assert.deepEqual(result.content[1], {
      type: 'image',
      data: png.toString('base64'),
      mimeType: 'image/png',
    });
    assert.deepEqual((await store.read(uri, 'anonymous')).contents, [
      { uri, mimeType: 'image/png', blob: png.toString('base64') },
    ]);
  });

  test('a cell with many images shows only its last few inline; all are listed with resources', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'ipybox-cellresult-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#0f0' } })
      .png()
      .toBuffer();
    const images = await Promise.all(
      Array.from({ length: MAX_INLINE_IMAGES + 3 }, async (_, i) => {
        const path = join(dir, `img${i}.png`);
        await writeFile(path, png);
        return { path, mimeType: 'image/png' as const, data: png };
      }),
    );
    const result = await cellResult(output('', images), withStore(5000));
    assert.equal(result.content.filter((c) => c.type === 'image').length, MAX_INLINE_IMAGES);
    const shown = firstText(result);
    assert.equal(shown.match(/full size: ipybox:\/\/images\//g)?.length, MAX_INLINE_IMAGES + 3);
    assert.match(
      shown,
      new RegExp(
        `- \\[img0\\]\\(\\S+\\) \\(not inline: a cell shows its last ${MAX_INLINE_IMAGES}; full size`,
      ),
    );
    assert.match(shown, /- \[img3\]\(\S+\) \(full size/);
  });

  test('a dead kernel is an isError result that says so', async () => {
    const result = await cellError(
      new KernelError('KERNEL_DIED', 'The kernel died.'),
      withStore(5000),
    );
    assert.equal(result.isError, true);
    assert.match(firstText(result), /^The kernel died\./);
  });
});
