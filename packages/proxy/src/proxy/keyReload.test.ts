/**
 * API keys reloaded with the policy on a running `mcp-proxy` over HTTP (real bin, SDK clients of
 * both eras): a revoked key is refused from its next request on, also on the session it opened
 * before; a key added works at once; a bad entry changes nothing; a proxy started without keys
 * says a restart turns them on, and stays as it was.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { newApiKey } from '@mcpbox/framework';
import { connectHttp, runProxyCli, startHttpProxy } from '@mcpbox/test-utils';
import type { Client } from '@modelcontextprotocol/client';
import { testdir } from './__fixtures__/testdir.ts';

type Key = ReturnType<typeof newApiKey>;

/** `api_keys:` holding `keys` by name (YAML lines). */
const keysConfig = (keys: Record<string, Key>) => [
  'api_keys:',
  ...Object.entries(keys).flatMap(([name, key]) => [
    `  - name: ${name}`,
    `    sha256: ${key.sha256}`,
  ]),
  '',
];

const MODERN = { versionNegotiation: { mode: { pin: '2026-07-28' as const } } };

const echo = async (client: Client) =>
  client.callTool({ name: 'echo', arguments: { message: 'hi' } });

test('a key removed from the file and reloaded is refused at once; a new key works; a bad entry changes nothing', async (t) => {
  const [ci, deploy] = [newApiKey(), newApiKey()];
  const dir = testdir({ 'proxy.yaml': keysConfig({ 'ci-bot': ci }).join('\n') }, t);
  const file = join(dir, 'proxy.yaml');
  const proxy = await startHttpProxy(t, ['-c', file, '-a', 'echo'], { env: { HOME: dir } });
  const reload = () =>
    runProxyCli(['reload-policy', '--mgmt-port', String(proxy.mgmtPort)]).then((r) => {
      assert.equal(r.code, 0, r.stderr);
      return r.stdout;
    });

  const legacy = await connectHttp(t, proxy.mcpUrl, { name: 'ci-2025', token: ci.key });
  const modern = await connectHttp(t, proxy.mcpUrl, {
    name: 'ci-2026',
    token: ci.key,
    options: MODERN,
  });
  assert.equal((await echo(legacy)).isError, undefined);
  assert.equal((await echo(modern)).isError, undefined);

  // A mistake in the new list: nothing changes, the answer names the entry, ci-bot still works.
  writeFileSync(
    file,
    ['api_keys:', '  - name: deploy-bot', '    sha256: not-a-digest', ''].join('\n'),
  );
  const bad = await runProxyCli(['reload-policy', '--mgmt-port', String(proxy.mgmtPort)]);
  assert.notEqual(bad.code, 0);
  assert.match(`${bad.stdout}${bad.stderr}`, /api_keys\[0\]\.sha256: expected the key.s SHA-256/);
  assert.match(`${bad.stdout}${bad.stderr}`, /nothing changed/);
  assert.doesNotMatch(`${bad.stdout}${bad.stderr}`, /not-a-digest/);
  assert.equal((await echo(legacy)).isError, undefined);

  writeFileSync(file, keysConfig({ 'deploy-bot': deploy }).join('\n'));
  assert.match(await reload(), /API keys added deploy-bot; removed ci-bot/);
  // The sessions ci-bot opened are refused too: every request is authenticated again.
  await assert.rejects(echo(legacy), /401|Invalid API key|Unauthorized/);
  await assert.rejects(echo(modern), /401|Invalid API key|Unauthorized/);
  await assert.rejects(connectHttp(t, proxy.mcpUrl, { token: ci.key }), /401|Invalid API key/);
  const deployer = await connectHttp(t, proxy.mcpUrl, { name: 'deploy', token: deploy.key });
  assert.equal((await echo(deployer)).isError, undefined);
  assert.doesNotMatch(proxy.stderr(), new RegExp(`${ci.key}|${deploy.key}`));
});

test('a proxy started without API keys does not take them on reload, and says to restart', async (t) => {
  const dir = testdir({ 'proxy.yaml': 'policy:\n  rules: []\n' }, t);
  const file = join(dir, 'proxy.yaml');
  const proxy = await startHttpProxy(t, ['-c', file, '-a', 'echo'], { env: { HOME: dir } });
  writeFileSync(file, keysConfig({ 'ci-bot': newApiKey() }).join('\n'));
  const reloaded = await runProxyCli(['reload-policy', '--mgmt-port', String(proxy.mgmtPort)]);
  assert.equal(reloaded.code, 0, reloaded.stderr);
  assert.match(reloaded.stdout, /api_keys were not reloaded: .*restart it to turn them on/);
  // Still served as started: on loopback, without a key.
  const open = await connectHttp(t, proxy.mcpUrl, { name: 'open' });
  assert.equal((await echo(open)).isError, undefined);
});
