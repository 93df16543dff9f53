/**
 * `ipybox --sandbox` end to end: the real bin under the real SDK client over stdio. Kernel code
 * still calls a registered MCP server (the tool server sits on a Unix socket in the workspace),
 * cannot write outside the workspace or read `.env`; a bad `--sandbox-config` stops the server at
 * start with the file and the field.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import {
  IPYBOX_BIN,
  registerEverything,
  runCell,
  type StdioIpybox,
  startStdioIpybox,
  tempWorkspace,
  textOf,
} from '../server/testing.ts';

describe('ipybox --sandbox over stdio', () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  let box: StdioIpybox;

  before(async () => {
    ws = await tempWorkspace('ipybox-sandbox-');
    await writeFile(join(ws.dir, '.env'), 'HOST_ONLY=not-for-the-kernel\n');
    await writeFile(join(ws.dir, 'sandbox.json'), '{"filesystem": {"denyRead": ["private"]}}');
    box = await startStdioIpybox(ws.dir, {
      args: ['--sandbox', '--sandbox-config', join(ws.dir, 'sandbox.json')],
    });
  });
  after(async () => {
    await box?.close();
    await ws?.remove();
  });

  test('tools registered from the host work from sandboxed code', async () => {
    await registerEverything(box.client);
    const result = await runCell(
      box.client,
      "from mcptools.everything import echo\nprint(echo.run({'message': 'sandboxed'}))",
    );
    assert.equal(textOf(result).trim(), 'Echo: sandboxed');
  });

  test('writes outside the workspace and reads of .env fail; the kernel goes on', async () => {
    const outside = await runCell(box.client, "open('/usr/escaped.txt', 'w')");
    assert.equal(outside.isError, true);
    assert.match(textOf(outside), /Read-only file system/);
    const env = await runCell(box.client, "open('.env').read()");
    assert.equal(env.isError, true);
    assert.match(textOf(env), /PermissionError/);
    const fine = await runCell(
      box.client,
      "open('inside.txt', 'w').write('ok')\nprint('still here')",
    );
    assert.equal(textOf(fine).trim(), 'still here');
  });

  test('a bad --sandbox-config fails at start with the file and the field', async () => {
    const bad = join(ws.dir, 'bad.json');
    await writeFile(bad, '{"network": {"allowedDomains": "pypi.org"}}');
    const run = promisify(execFile)(
      process.execPath,
      [IPYBOX_BIN, '--workspace', ws.dir, '--sandbox', '--sandbox-config', bad],
      { timeout: 60_000 },
    );
    await assert.rejects(run, (error: { code?: number; stderr?: string }) => {
      assert.notEqual(error.code, 0);
      assert.ok(error.stderr?.includes(bad), error.stderr);
      assert.match(error.stderr ?? '', /network\.allowedDomains/);
      return true;
    });
  });
});
