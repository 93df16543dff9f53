/**
 * `install_package` end to end (real bin, real SDK client, real pip). There is no network here,
 * so the successful install is from a local project directory (built with Debian's setuptools,
 * no build isolation); a package from the index shows the failure a user sees offline.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/server';
import {
  runCell,
  type StdioIpybox,
  startStdioIpybox,
  tempWorkspace,
  textOf,
} from '../server/testing.ts';

async function writeTinyProject(dir: string): Promise<void> {
  await mkdir(join(dir, 'ipybox_tinypkg'), { recursive: true });
  await writeFile(join(dir, 'ipybox_tinypkg', '__init__.py'), 'VALUE = 42\n');
  await writeFile(
    join(dir, 'pyproject.toml'),
    '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n\n[project]\nname = "ipybox-tinypkg"\nversion = "0.1.0"\n',
  );
}

describe('ipybox over stdio: install_package', () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  let box: StdioIpybox;
  const install = async (package_name: string, progress: string[] = []) =>
    (await box.client.callTool(
      { name: 'install_package', arguments: { package_name } },
      // Creating the venv and running pip take tens of seconds on a busy machine.
      {
        timeout: 600_000,
        onprogress: ({ message }) => {
          if (message !== undefined) progress.push(message);
        },
      },
    )) as CallToolResult;

  before(async () => {
    ws = await tempWorkspace();
    await writeTinyProject(join(ws.dir, 'tinypkg'));
    box = await startStdioIpybox(ws.dir);
  });
  after(async () => {
    await box?.close();
    await ws?.remove();
  });

  test('installs a local project into <workspace>/.venv; the running kernel imports it and keeps its state', async () => {
    await runCell(box.client, 'state = 1');
    const before = await runCell(box.client, 'import ipybox_tinypkg');
    assert.equal(before.isError, true);

    const progress: string[] = [];
    const result = await install('./tinypkg', progress);
    assert.equal(result.isError, undefined, textOf(result));
    // What pip says arrives while it runs, line by line, as progress.
    assert.match(progress[0], /^Creating the workspace virtual environment /);
    assert.ok(
      progress.some((line) => /^Processing \.\/tinypkg/.test(line)),
      progress.join('\n'),
    );
    assert.match(progress.at(-1) ?? '', /Successfully installed ipybox-tinypkg-0\.1\.0/);
    assert.match(textOf(result), /Created the workspace virtual environment/);
    assert.match(textOf(result), /Successfully installed ipybox-tinypkg-0\.1\.0/);
    assert.ok(existsSync(join(ws.dir, '.venv', 'bin', 'python')));

    const now = await runCell(
      box.client,
      'import ipybox_tinypkg\nprint(ipybox_tinypkg.VALUE, state)',
    );
    assert.equal(textOf(now), '42 1');
  });

  test('after reset the kernel runs from the venv interpreter (system packages still there)', async () => {
    await box.client.callTool({ name: 'reset', arguments: {} });
    const result = await runCell(
      box.client,
      'import sys, ipybox_tinypkg, matplotlib\nprint(sys.prefix)\nprint(ipybox_tinypkg.VALUE)',
    );
    assert.equal(textOf(result), `${join(ws.dir, '.venv')}\n42`);
  });

  test("Debian's Python is untouched", async () => {
    const result = await runCell(
      box.client,
      "import subprocess\nprint(subprocess.run(['/usr/bin/python3', '-c', 'import ipybox_tinypkg'], capture_output=True).returncode)",
    );
    assert.equal(textOf(result), '1');
  });

  test("without network, a package from the index fails with pip's message and a hint", async () => {
    const progress: string[] = [];
    const result = await install('ipybox-no-such-package-on-pypi', progress);
    assert.ok(progress.some((line) => /No matching distribution found/.test(line)));
    assert.equal(result.isError, true);
    assert.match(textOf(result), /pip install ipybox-no-such-package-on-pypi failed/);
    assert.match(textOf(result), /No matching distribution found/);
    assert.match(textOf(result), /no network access/);
  });

  test('a pip option instead of a package is refused', async () => {
    const result = await install('--index-url=http://evil.example/simple');
    assert.equal(result.isError, true);
    assert.match(textOf(result), /not a pip option/);
  });
});
