import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { buildEnvironment, loadEnvironment } from './environment.ts';

describe('ipybox environment', () => {
  test('only KERNEL_ENV_* reach the kernel, prefix stripped; the real environment wins over .env', () => {
    const env = buildEnvironment(
      { KERNEL_ENV_A: 'dotenv', KERNEL_ENV_B: 'dotenv-b', API_KEY: 'from-dotenv' },
      {
        KERNEL_ENV_A: 'real',
        PATH: '/bin',
        SECRET: 'x',
        KERNEL_ENV_: 'empty name',
        UNSET: undefined,
      },
    );
    assert.deepEqual(env.kernel, { A: 'real', B: 'dotenv-b' });
    assert.equal(env.host.API_KEY, 'from-dotenv');
    assert.equal(env.host.SECRET, 'x');
    assert.equal('UNSET' in env.host, false);
  });

  test('.env in dotenv syntax (comments, quotes, export-less); a missing file is fine', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'ipybox-env-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    assert.deepEqual((await loadEnvironment(dir, {})).kernel, {});
    await writeFile(
      join(dir, '.env'),
      '# a comment\nKERNEL_ENV_QUOTED="two words"\nKERNEL_ENV_SINGLE=\'x=y\'\nTOKEN=abc # trailing\n',
    );
    const env = await loadEnvironment(dir, {});
    assert.deepEqual(env.kernel, { QUOTED: 'two words', SINGLE: 'x=y' });
    assert.equal(env.host.TOKEN, 'abc');
  });
});
