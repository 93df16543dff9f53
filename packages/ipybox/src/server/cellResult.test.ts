import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CodeExecutionError, KernelError } from '../kernel/errors.ts';
import type { ExecutionResult } from '../kernel/execution.ts';
import { cellError, cellResult, truncateOutput } from './cellResult.ts';

const output = (text: string, images: ExecutionResult['images'] = []): ExecutionResult => ({
  kind: 'result',
  executionCount: 1,
  text,
  stdout: text,
  stderr: '',
  result: undefined,
  displays: [],
  images,
});

describe('execute_ipython_cell results', () => {
  test('truncation keeps max characters and appends the exact marker', () => {
    assert.equal(truncateOutput('abcdef', 6), 'abcdef');
    assert.equal(
      truncateOutput('abcdefg', 3),
      'abc\n\n[Output truncated: exceeded 3 character limit]',
    );
  });

  test('images: image items and their paths, listed after the (truncated) text', () => {
    const png = Buffer.from('89504e47', 'hex');
    const result = cellResult(
      output('x'.repeat(20), [{ path: '/ws/images/abc.png', mimeType: 'image/png', data: png }]),
      5,
    );
    assert.deepEqual(result.content, [
      {
        type: 'text',
        text: 'xxxxx\n\n[Output truncated: exceeded 5 character limit]\n\nGenerated images:\n\n- [abc](/ws/images/abc.png)',
      },
      { type: 'image', data: png.toString('base64'), mimeType: 'image/png' },
    ]);
  });

  test('an exception: isError, output before it, then the traceback', () => {
    const error = new CodeExecutionError(
      'ValueError',
      'bad',
      'Traceback...\nValueError: bad',
      output('partial\n'),
    );
    assert.deepEqual(cellError(error, 5000), {
      isError: true,
      content: [{ type: 'text', text: 'partial\n\nTraceback...\nValueError: bad' }],
    });
  });

  test('a dead kernel says that the next call starts a fresh one', () => {
    const result = cellError(new KernelError('KERNEL_DIED', 'The kernel died.'), 5000);
    assert.equal(result.isError, true);
    assert.match(
      String(result.content[0] && 'text' in result.content[0] && result.content[0].text),
      /next call starts a fresh kernel/,
    );
  });
});
