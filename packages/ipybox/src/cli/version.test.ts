/** `ipybox --version` (and `-V`), run as the real bin: the package's version, exit 0. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

test('ipybox --version and -V print the version', () => {
  const { version } = JSON.parse(
    readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
  ) as { version: string };
  const bin = fileURLToPath(new URL('../../bin/ipybox.js', import.meta.url));
  for (const flag of ['--version', '-V']) {
    const run = spawnSync(process.execPath, [bin, flag], { encoding: 'utf8', timeout: 60_000 });
    assert.deepEqual([run.status, run.stdout, run.stderr], [0, `${version}\n`, ''], flag);
  }
});
