/**
 * Preflight with a PATH that lacks programs: a real directory holding links to the real
 * programs it keeps. The user-namespace refusal cannot be produced on this host (its kernel
 * allows them), so that one case uses a stand-in `bwrap` that fails the way bubblewrap does.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { findProgram } from '@mcpbox/framework';
import { checkSandboxHost, SANDBOX_INSTALL_HINT, SandboxUnavailableError } from './preflight.ts';

const START = fileURLToPath(new URL('../__fixtures__/startSandboxed.ts', import.meta.url));

describe('sandbox preflight', () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'sandbox-preflight-'));
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  /** A PATH directory with links to the named real programs only. */
  async function pathWith(name: string, programs: string[]): Promise<string> {
    const dir = join(root, name);
    await mkdir(dir);
    for (const program of programs) {
      const real = findProgram(program, process.env.PATH);
      assert.ok(real, `${program} must be installed for this test`);
      await symlink(real, join(dir, program));
    }
    return dir;
  }

  test('all programs there and user namespaces usable: their paths', () => {
    const host = checkSandboxHost();
    assert.match(host.bwrap, /\/bwrap$/);
    assert.match(host.socat, /\/socat$/);
    assert.match(host.rg, /\/rg$/);
  });

  test('missing bwrap names the Debian package and the install command', async () => {
    const path = await pathWith('no-bwrap', ['socat', 'rg']);
    assert.throws(
      () => checkSandboxHost(path),
      (error: unknown) => {
        assert.ok(error instanceof SandboxUnavailableError);
        assert.match(error.message, /bwrap \(Debian package bubblewrap\)/);
        assert.doesNotMatch(error.message, /socat \(/);
        assert.ok(error.message.includes(SANDBOX_INSTALL_HINT));
        return true;
      },
    );
  });

  test('nothing installed: all three named', async () => {
    const path = await pathWith('empty', []);
    assert.throws(
      () => checkSandboxHost(path),
      /bwrap \(Debian package bubblewrap\), socat \(Debian package socat\), rg \(Debian package ripgrep\).*apt-get install bubblewrap socat ripgrep/,
    );
  });

  test('a kernel without user namespaces', async () => {
    const path = await pathWith('no-userns', ['socat', 'rg']);
    const fake = join(path, 'bwrap');
    await writeFile(
      fake,
      '#!/bin/sh\necho "bwrap: No permissions to creating new namespace" >&2\nexit 1\n',
    );
    await chmod(fake, 0o755);
    assert.throws(
      () => checkSandboxHost(path),
      /cannot create a user namespace.*No permissions to creating new namespace.*apt-get install bubblewrap socat ripgrep/,
    );
  });

  test('CodeExecutor({sandbox: true}) fails at start when socat is missing', async () => {
    const path = await pathWith('no-socat', ['bwrap', 'rg', 'sh', 'env']);
    const workspace = join(root, 'ws');
    await mkdir(workspace);
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', START, workspace],
      { env: { ...process.env, PATH: path }, timeout: 60_000 },
    );
    const outcome = JSON.parse(stdout);
    assert.equal(outcome.name, 'SandboxUnavailableError');
    assert.match(
      outcome.message,
      /socat \(Debian package socat\).*apt-get install bubblewrap socat ripgrep/,
    );
  });
});
