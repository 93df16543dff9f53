/**
 * A wrong `--python` stops `ipybox` at start-up, non-zero, with a message that says the fix —
 * before, it started and every cell failed. The real bin, over stdio, with interpreters that do
 * not exist, are not Python, or lack ipykernel.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { IPYBOX_BIN, tempWorkspace } from '../server/testing.ts';

const FIXTURES = fileURLToPath(new URL('../__fixtures__/', import.meta.url));

/** Runs `ipybox --python <python>` with stdin open, so a server that starts would keep running. */
async function startWith(python: string): Promise<{ code: number | null; stderr: string }> {
  const ws = await tempWorkspace('ipybox-python-');
  try {
    const run = promisify(execFile)(
      process.execPath,
      [IPYBOX_BIN, '--workspace', ws.dir, '--python', python],
      { timeout: 60_000, killSignal: 'SIGKILL' },
    );
    // A server that started would wait on stdin forever: the timeout kills it (code null).
    const outcome = await run.then(
      () => ({ code: 0, stderr: '' }),
      (error: { code?: number | string | null; stderr?: string }) => ({
        code: typeof error.code === 'number' ? error.code : null,
        stderr: error.stderr ?? '',
      }),
    );
    return outcome;
  } finally {
    await ws.remove();
  }
}

describe('ipybox --python is checked at start-up', () => {
  const cases = [
    {
      what: 'an interpreter that does not exist',
      python: '/nonexistent/python3',
      message:
        /\/nonexistent\/python3 not found or not executable: .*apt-get install python3-ipykernel.*--python/,
    },
    {
      what: 'a program that is not Python',
      python: '/bin/true',
      message: /\/bin\/true does not run as a Python interpreter .*--python/,
    },
    {
      what: 'a Python without ipykernel',
      python: join(FIXTURES, 'python-without-ipykernel.sh'),
      message:
        /ipykernel is not installed for .*python-without-ipykernel\.sh: .* -m pip install ipykernel, or pass --python/,
    },
  ];
  for (const { what, python, message } of cases) {
    test(`${what}: exits 1 and says the fix`, async () => {
      const { code, stderr } = await startWith(python);
      assert.equal(code, 1, stderr);
      assert.match(stderr, message);
    });
  }
});
