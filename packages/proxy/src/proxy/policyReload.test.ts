/**
 * Views and policy managed on a running `mcp-proxy` (OAuth against a real local introspection
 * server, SDK clients of both eras): `reload_policy` over REST changes what a principal's
 * `tools/list` shows without a restart; a rule that does not compile leaves the old policy
 * deciding and the answer names the rule; the principals seen carry their calls and refusals;
 * `mcp-proxy explain`, `reload-policy` and `principals` print what a user reads; SIGHUP reloads.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  connectHttp,
  runProxyCli,
  startHttpProxy,
  startIntrospectionServer,
  textOf,
  waitFor,
} from '@mcpbox/test-utils';
import type { Client } from '@modelcontextprotocol/client';
import { testdir } from './__fixtures__/testdir.ts';

const hour = () => Math.floor(Date.now() / 1000) + 3600;

/** The config with `rules` (YAML lines under `policy.rules`). */
function config(oauth: string, rules: string[]): string {
  return [
    `oauth_server_url: ${oauth}`,
    'oauth_public_url: http://127.0.0.1/mcp',
    'policy:',
    '  rules:',
    ...rules.map((line) => `    ${line}`),
    '',
  ].join('\n');
}

const SUPPORT_ECHO = [
  '- name: support-echo',
  '  tools: [echo]',
  `  allow: '"support" in principal.groups'`,
];

const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name).sort();

test('reload_policy changes what a principal sees without a restart; a bad rule changes nothing', async (t) => {
  const as = await startIntrospectionServer();
  t.after(() => as.close());
  const claims = { active: true, client_id: 'policy-test', exp: hour() };
  as.tokens.set('alice-token', { ...claims, sub: 'alice', groups: ['support'], team: 'blue' });
  as.tokens.set('bob-token', { ...claims, sub: 'bob', groups: [] });
  const dir = testdir({ 'proxy.yaml': config(as.url, SUPPORT_ECHO) }, t);
  const file = join(dir, 'proxy.yaml');
  const proxy = await startHttpProxy(t, ['-c', file, '-a', 'echo'], {
    env: { HOME: dir },
    timeoutMs: 60_000,
  });
  const mgmt = `http://127.0.0.1:${proxy.mgmtPort}`;
  const reload = async () => {
    const response = await fetch(`${mgmt}/proxy/policy/reload`, { method: 'POST' });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const cli = (...args: string[]) => runProxyCli([...args, '--mgmt-port', String(proxy.mgmtPort)]);

  const alice = await connectHttp(t, proxy.mcpUrl, { name: 'alice', token: 'alice-token' });
  const modernAlice = await connectHttp(t, proxy.mcpUrl, {
    name: 'alice-2026',
    token: 'alice-token',
    options: { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  });
  const bob = await connectHttp(t, proxy.mcpUrl, { name: 'bob', token: 'bob-token' });
  assert.deepEqual(await names(alice), ['echo']);
  assert.deepEqual(await names(bob), []);

  // The file now allows every echo tool and adds a rule: one reload, no restart.
  writeFileSync(
    file,
    config(as.url, [
      '- name: support-echo',
      '  tools: ["echo*"]',
      `  allow: '"support" in principal.groups'`,
      '- name: blue-team',
      '  tools: [echo_upper]',
      `  deny: 'principal.claims.team == "red"'`,
    ]),
  );
  const reloaded = await reload();
  assert.equal(reloaded.status, 200, JSON.stringify(reloaded.body));
  assert.equal(reloaded.body.rules, 2);
  assert.deepEqual(reloaded.body.changed, {
    views: { added: [], removed: [], changed: [] },
    rules: { added: ['blue-team'], removed: [], changed: ['support-echo'] },
  });
  assert.deepEqual(await names(alice), ['echo', 'echo_upper']);
  assert.deepEqual(await names(modernAlice), ['echo', 'echo_upper']);
  const upper = await alice.callTool({ name: 'echo_upper', arguments: { message: 'hi' } });
  assert.equal(textOf(upper), 'HI');

  // A rule that does not compile: 400 naming it, and the policy in force stays as it was.
  writeFileSync(
    file,
    config(as.url, ['- name: half-written', `  allow: '"support" in'`, ...SUPPORT_ECHO]),
  );
  const broken = await reload();
  assert.equal(broken.status, 400);
  assert.match(String(broken.body.error), /rule "half-written"/);
  assert.match(String(broken.body.error), /nothing changed/);
  assert.deepEqual(await names(alice), ['echo', 'echo_upper']);
  // A key that is wrong is named the same way.
  writeFileSync(file, config(as.url, ['- name: typo', `  alow: 'true'`]));
  const typo = await reload();
  assert.equal(typo.status, 400);
  assert.match(String(typo.body.error), /policy\.rules\.0: unknown alow/);
  assert.deepEqual(await names(alice), ['echo', 'echo_upper']);

  // Bob is refused; both appear among the principals seen, with their calls and refusals.
  const refused = await bob.callTool({ name: 'echo', arguments: { message: 'x' } });
  assert.equal(refused.isError, true);
  const seen = (await (await fetch(`${mgmt}/proxy/principals`)).json()) as {
    principals: Array<{
      id: string;
      kind: string;
      groups: string[];
      calls: number;
      refusals: number;
      claimKeys: string[];
    }>;
  };
  const byId = new Map(seen.principals.map((p) => [p.id, p]));
  assert.deepEqual(byId.get('sub:bob'), {
    ...byId.get('sub:bob'),
    kind: 'oauth',
    calls: 1,
    refusals: 1,
  });
  assert.deepEqual(byId.get('sub:alice')?.groups, ['support']);
  assert.equal(byId.get('sub:alice')?.refusals, 0);
  assert.ok(byId.get('sub:alice')?.claimKeys.includes('team'));
  const listed = await cli('principals');
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /^sub:bob +oauth +groups: — +views: \/mcp +calls: 1 +refused: 1 /m);

  // explain: alice as last seen (her groups and claims), then as given.
  const allowed = await cli('explain', '--principal', 'sub:alice', '--tool', 'echo_upper');
  assert.equal(allowed.code, 0, allowed.stderr);
  assert.match(
    allowed.stdout,
    /^Principal: sub:alice \(oauth, as last seen\); groups: support; claims: .*team/m,
  );
  assert.match(allowed.stdout, /^ {2}support-echo +allow +true +"support" in principal\.groups$/m);
  assert.match(allowed.stdout, /^ {2}blue-team +deny +false +principal\.claims\.team == "red"$/m);
  assert.match(allowed.stdout, /^Outcome: +ALLOWED \(rule "support-echo"\), decided as listing/m);
  const red = await cli(
    'explain',
    '--principal',
    'sub:alice',
    '--claims',
    '{"team": "red", "groups": ["support"]}',
    '--tool',
    'echo_upper',
    '--args',
    '{"message": "x"}',
  );
  assert.match(
    red.stdout,
    /^Outcome: +DENIED: denied by policy rule "blue-team", decided as a call/m,
  );
  // Never seen: as given. Without a team claim the deny rule cannot be evaluated: it denies.
  const carol = await cli('explain', '--principal', 'sub:carol', '--groups', 'support');
  assert.match(carol.stdout, /not seen lately: as given/);
  assert.match(carol.stdout, /^Sees 1 tool: echo$/m);
  const blue = await cli(
    ...['explain', '--principal', 'sub:carol', '--groups', 'support'],
    ...['--claims', '{"team": "blue"}'],
  );
  assert.match(blue.stdout, /^Sees 2 tools: echo, echo_upper$/m);
  const missing = await cli('explain', '--tool', 'echo');
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /--principal is required/);

  // The CLI's reload prints what changed; SIGHUP reloads too.
  writeFileSync(file, config(as.url, SUPPORT_ECHO));
  const again = await cli('reload-policy');
  assert.equal(again.code, 0, again.stderr);
  assert.match(
    again.stdout,
    /^Policy reloaded from .*proxy\.yaml: 0 views, 1 rule \(rules changed support-echo; removed blue-team\)\.$/m,
  );
  assert.deepEqual(await names(alice), ['echo']);
  writeFileSync(file, config(as.url, ['- name: everyone', `  allow: 'true'`]));
  proxy.child.kill('SIGHUP');
  await waitFor(async () => (await names(bob)).includes('echo_upper'), 'the SIGHUP reload');

  // Over MCP a principal asks about itself alone: bob's tools tell him nothing of alice.
  const own = textOf(await bob.callTool({ name: 'proxy__principals', arguments: {} }));
  assert.match(own, /sub:bob/);
  assert.doesNotMatch(own, /alice/);
  const asked = textOf(
    await bob.callTool({
      name: 'proxy__explain',
      arguments: { principal: 'sub:alice', groups: ['support'], tool: 'echo' },
    }),
  );
  assert.match(asked, /Principal: sub:bob/);
  assert.doesNotMatch(asked, /alice|support/);
});
