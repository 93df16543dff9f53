/**
 * Where the management token comes from, through the real `mcp-proxy` bin: an explicitly empty
 * `--mgmt-token` (an unset variable in `--mgmt-token "$MCP_MGMT_TOKEN"`) is a start-up error,
 * not an open API; `--mgmt-token-file` and `MCP_MGMT_TOKEN` keep the token out of `ps`; the
 * client commands take the same flags, with `--token` kept as an alias.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { freePort, PROXY_BIN, REPO_ROOT, runProxyCli, startProxy } from '@mcpbox/test-utils';
import { probeManagementPort } from '../../management/client.ts';
import { testdir } from '../../proxy/__fixtures__/testdir.ts';

/**
 * Runs `mcp-proxy serve` over stdio with stdin already at its end: a start-up error exits 1,
 * while a proxy that does start serves until stdin ends and then exits 0 (so a regression
 * cannot hang the test).
 */
function serveOnce(args: string[], env: Record<string, string> = {}) {
  const run = spawnSync(process.execPath, [PROXY_BIN, 'serve', ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, MCP_MGMT_TOKEN: '', ...env },
    input: '',
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: run.status, stderr: run.stderr };
}

const status = (port: number, token?: string) =>
  fetch(`http://127.0.0.1:${port}/proxy/status`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  }).then((response) => response.status);

test('an empty --mgmt-token, an empty or missing token file, or both flags: start-up errors', async (t) => {
  const dir = testdir({ 'empty-token': '\n  \n' }, t);
  const port = await freePort();
  const common = ['--mgmt-port', String(port), '-a', 'echo'];
  const cases: Array<[string[], RegExp]> = [
    [
      ['--mgmt-token', ''],
      /^Error: --mgmt-token is empty \(an unset variable in --mgmt-token "\$MCP_MGMT_TOKEN"\?\); give a token, or leave the flag out to run without one\n$/,
    ],
    [
      ['--mgmt-token-file', join(dir, 'empty-token')],
      /^Error: --mgmt-token-file \S+empty-token is empty\n$/,
    ],
    [
      ['--mgmt-token-file', join(dir, 'no-such-file')],
      /^Error: cannot read --mgmt-token-file \S+no-such-file \(ENOENT\)\n$/,
    ],
    [
      ['--mgmt-token', 'x', '--mgmt-token-file', join(dir, 'empty-token')],
      /^Error: give the management token once: --mgmt-token or --mgmt-token-file, not both\n$/,
    ],
  ];
  for (const [flags, message] of cases) {
    const run = serveOnce([...flags, ...common], { HOME: dir });
    assert.equal(run.code, 1, `${flags.join(' ')}:\n${run.stderr}`);
    assert.match(run.stderr, message);
  }
  assert.equal(await probeManagementPort(port), false);
});

test('the token from --mgmt-token-file (not in ps) wins over MCP_MGMT_TOKEN; client commands take both flags', async (t) => {
  const token = 'file-token-4f1c9a';
  const dir = testdir({ token: `${token}\n` }, t);
  const tokenFile = join(dir, 'token');
  const proxy = await startProxy(
    ['--mgmt-port', '0', '--mgmt-token-file', tokenFile, '-a', 'echo'],
    { env: { HOME: dir, MCP_MGMT_TOKEN: 'env-token' } },
  );
  t.after(() => proxy.stop());
  const port = proxy.mgmtPort;
  assert.match(proxy.stderr(), /management API http:\S+ \(token required\)/);

  // What `ps` shows is /proc/PID/cmdline: the path, never the token.
  const cmdline = readFileSync(`/proc/${proxy.child.pid}/cmdline`, 'utf8');
  assert.ok(cmdline.includes(tokenFile));
  assert.ok(!cmdline.includes(token));
  assert.ok(!proxy.stderr().includes(token));

  assert.deepEqual(
    [await status(port), await status(port, 'env-token'), await status(port, token)],
    [401, 401, 200],
  );

  const cli = (...args: string[]) => runProxyCli(['status', '--mgmt-port', String(port), ...args]);
  for (const flags of [
    ['--mgmt-token-file', tokenFile],
    ['--mgmt-token', token],
    ['--token', token], // the old name stays an alias
  ]) {
    const run = await cli(...flags);
    assert.equal(run.code, 0, `${flags[0]}: ${run.stderr}`);
    assert.match(run.stdout, /^Plugins: 2, Tools: 19$/m);
  }
  const empty = await cli('--mgmt-token', '');
  assert.equal(empty.code, 1);
  assert.match(empty.stderr, /^Error: --mgmt-token is empty/);
  const noToken = await cli();
  assert.deepEqual(
    [noToken.code, noToken.stderr],
    [
      1,
      'Error: unauthorized — provide --mgmt-token (or --mgmt-token-file) or set MCP_MGMT_TOKEN\n',
    ],
  );
});

test('MCP_MGMT_TOKEN alone protects the API', async (t) => {
  const dir = testdir({}, t);
  const proxy = await startProxy(['--mgmt-port', '0', '-a', 'echo'], {
    env: { HOME: dir, MCP_MGMT_TOKEN: 'env-only-token' },
  });
  t.after(() => proxy.stop());
  assert.deepEqual(
    [await status(proxy.mgmtPort), await status(proxy.mgmtPort, 'env-only-token')],
    [401, 200],
  );
});
