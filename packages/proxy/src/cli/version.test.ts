/**
 * `--version` on every bin of this package, run as the real bin: the package's version on stdout,
 * exit 0 (mcp-proxy's default command `serve` used to reject it as an unknown option).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const { version } = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
) as { version: string };

for (const bin of ['mcp-factory', 'mcp-proxy', 'mcp-client']) {
  test(`${bin} --version and -V print the version`, () => {
    const path = fileURLToPath(new URL(`../../bin/${bin}.js`, import.meta.url));
    for (const flag of ['--version', '-V']) {
      const run = spawnSync(process.execPath, [path, flag], { encoding: 'utf8', timeout: 60_000 });
      assert.deepEqual([run.status, run.stdout, run.stderr], [0, `${version}\n`, ''], flag);
    }
  });
}
