/**
 * Code mode inside a real mcp-proxy over HTTP, two 2025 sessions:
 * - one session's long output (a `codemode://` resource) is not readable by the other;
 * - a TOTP-gated tool called from code is refused until the caller unlocks, and another
 *   session's unlock does not count for it (the cell's caller is who the gate sees);
 * - `mcp-proxy load`/`unload` (the management API) regenerate mcptools/: a plugin loaded while
 *   the kernel runs is importable in its next cell, an unloaded one's package is gone from disk
 *   and from the kernel's imports, and its tool called mid-cell after the unload fails with a
 *   Python error naming the tool.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { codeAt, connectHttp, newSecret, startHttpProxy } from '@mcpbox/test-utils';
import type { CallToolResult, ResourceLink } from '@modelcontextprotocol/server';
import { tempWorkspace, textOf } from '../server/testing.ts';
import { executeCode, waitFor } from './testing.ts';

const TOKEN = 'code-mode-proxy-test-token';

async function proxyWithCodeMode(t: { after: (fn: () => unknown) => void }) {
  const { dir, remove } = await tempWorkspace('code-mode-proxy-');
  t.after(remove);
  const workspace = join(dir, 'workspace');
  await writeFile(
    join(dir, 'proxy.yaml'),
    `plugins:\n  code_mode:\n    workspace: ${JSON.stringify(workspace)}\n`,
  );
  const secret = newSecret();
  const proxy = await startHttpProxy(
    t,
    ['--mgmt-token', TOKEN, '-c', join(dir, 'proxy.yaml'), '-a', 'echo', 'gated', 'code_mode'],
    { env: { HOME: dir, TMPDIR: dir, MCP_GATE_SECRET_SECRETS: secret }, timeoutMs: 90_000 },
  );
  const connect = (name: string) => connectHttp(t, proxy.mcpUrl, { name });
  const manage = async (action: 'load' | 'unload', plugin: string) => {
    const response = await fetch(`http://127.0.0.1:${proxy.mgmtPort}/proxy/${action}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ plugin }),
    });
    const body = (await response.json()) as { ok: boolean; error?: string };
    assert.equal(body.ok, true, `${action} ${plugin}: ${body.error}`);
  };
  return { dir, workspace, secret, connect, manage };
}

test('code mode in mcp-proxy: a gated tool from code needs the cell caller’s own unlock', async (t) => {
  const { secret, connect } = await proxyWithCodeMode(t);
  const a = await connect('session-a');
  const b = await connect('session-b');
  const action = (what: string) =>
    `from mcptools.gated import gated_secret_action\nprint(gated_secret_action.run({'what': '${what}'}))`;

  const before = await executeCode(a, action('early'));
  assert.equal(before.isError, true);
  assert.match(before.text, /ToolError: gated\.gated_secret_action: Group 'secrets' is locked/);

  const unlocked = await a.callTool({
    name: 'gate_unlock',
    arguments: { group: 'secrets', code: codeAt(secret, Date.now()) },
  });
  assert.match(textOf(unlocked), /unlocked/);
  const after = await executeCode(a, action('a1'));
  assert.equal(after.isError, false, after.text);
  assert.equal(after.text.trim(), 'Done: a1');

  // B's code runs as B: A's unlock is not B's.
  const other = await executeCode(b, action('steal'));
  assert.equal(other.isError, true);
  assert.match(other.text, /Group 'secrets' is locked/);
  // Nor can B run its code in A's (unlocked caller's) kernel by naming it.
  const borrowed = await executeCode(b, action('borrowed'), { kernel: after.kernel });
  assert.equal(borrowed.isError, true);
  assert.match(borrowed.text, /belongs to another caller/);

  // A's long output is kept as a codemode:// resource that only A's session reads.
  const long = (await a.callTool(
    { name: 'execute_code', arguments: { code: "print('x' * 5000)", max_output_chars: 100 } },
    { timeout: 300_000 },
  )) as CallToolResult;
  const link = long.content.find((c): c is ResourceLink => c.type === 'resource_link');
  assert.ok(link, textOf(long));
  assert.match(link.uri, /^codemode:\/\/outputs\//);
  assert.equal(
    ((await a.readResource({ uri: link.uri })).contents[0] as { text: string }).text,
    'x'.repeat(5000),
  );
  await assert.rejects(b.readResource({ uri: link.uri }), /has no output/);
});

test('code mode in mcp-proxy: load and unload regenerate mcptools/ for running kernels', async (t) => {
  const { dir, workspace, connect, manage } = await proxyWithCodeMode(t);
  const client = await connect('regeneration');
  const missing = await executeCode(client, 'import mcptools.greet');
  assert.match(missing.text, /ModuleNotFoundError: No module named 'mcptools\.greet'/);

  await manage('load', 'greet');
  const loaded = await executeCode(
    client,
    "from mcptools.greet import greet\nprint(greet.run({'name': 'Ada'}))",
  );
  assert.equal(loaded.isError, false, loaded.text);
  assert.match(loaded.text, /Ada/);
  const search = await client.callTool({
    name: 'search_tools',
    arguments: { query: 'greet someone by name' },
  });
  assert.match(textOf(search), /from mcptools\.greet import greet/);

  // A cell holding the module waits while greet is unloaded, then calls it.
  const marker = join(dir, 'unloaded');
  const midCell = executeCode(
    client,
    [
      'import os, time',
      `while not os.path.exists(${JSON.stringify(marker)}):`,
      '    time.sleep(0.05)',
      "greet.run({'name': 'Bob'})",
    ].join('\n'),
  );
  await manage('unload', 'greet');
  await writeFile(marker, '');
  const failed = await midCell;
  assert.equal(failed.isError, true);
  assert.match(
    failed.text,
    /ToolNotFound: tool 'greet' is not in the catalog: plugin 'greet' was unloaded/,
  );

  await waitFor(
    () => !existsSync(join(workspace, 'mcptools', 'greet')),
    'mcptools/greet to be removed',
  );
  // The running kernel no longer finds it either (evicted from sys.modules).
  const gone = await executeCode(client, 'import mcptools.greet');
  assert.match(gone.text, /ModuleNotFoundError: No module named 'mcptools\.greet'/);
  assert.ok(existsSync(join(workspace, 'mcptools', 'echo', 'echo.py')), 'echo stays');
});
