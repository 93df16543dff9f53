/**
 * Skills (SEP-2640) of mirrored servers through a real `mcp-proxy`: two SDK v2 upstreams serving
 * a skill of the same name appear as `gh-review` and `other-review`, read and verified by SDK
 * v2 clients of both eras over HTTP and over stdio; an upstream's new skill reaches clients when
 * it announces the change; unloading an upstream takes its skills away; an upstream without
 * skills serves none, one whose `skills/list` fails only warns. Under a policy, a principal that
 * may use none of a server's tools neither lists nor reads its skills, even by their URIs.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  connectHttp,
  connectStdio,
  REPO_ROOT,
  startHttpProxy,
  startIntrospectionServer,
  waitFor,
} from '@mcpbox/test-utils';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { testdir, writeFile } from './__fixtures__/testdir.ts';

const UPSTREAM = join(REPO_ROOT, 'packages/proxy/src/proxy/__fixtures__/skillsUpstream.ts');

const skillMd = (name: string, description: string) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n\nHow to ${description.toLowerCase()}.\n`;

const FILES = {
  'gh/review/SKILL.md': skillMd('review', 'Review a pull request'),
  'gh/review/references/GUIDE.md': '# Guide\n\nBe kind.\n',
  'gh/deploy/SKILL.md': skillMd('deploy', 'Deploy a branch'),
  'other/review/SKILL.md': skillMd('review', 'Review a design document'),
};

/** An upstream entry running the fixture with `env`. */
function upstream(name: string, env: Record<string, string>): string[] {
  return [
    `  ${name}:`,
    `    command: ${JSON.stringify(process.execPath)}`,
    `    args: [--import, tsx, ${JSON.stringify(UPSTREAM)}]`,
    `    cwd: ${JSON.stringify(REPO_ROOT)}`,
    `    env: ${JSON.stringify(env)}`,
  ];
}

function config(dir: string, extra: string[] = [], plugins: string[] = []): string {
  return [
    'auto_prefix: true',
    'autoload: [gh, other, plain, broken]',
    ...extra,
    'plugins:',
    ...upstream('gh', { SKILLS_DIR: join(dir, 'gh') }),
    ...upstream('other', { SKILLS_DIR: join(dir, 'other') }),
    ...upstream('plain', {}),
    ...upstream('broken', { SKILLS_BROKEN: '1' }),
    ...plugins,
    '',
  ].join('\n');
}

const eraClient = (era: '2025' | '2026', name: string) =>
  new Client(
    { name, version: '1.0.0' },
    era === '2026' ? { versionNegotiation: { mode: 'auto' } } : {},
  );

const names = async (skills: SkillsClient) =>
  (await skills.list()).skills.map((s) => s.frontmatter.name).sort();

/** What every client sees of the two upstreams' skills, verified file by file. */
async function assertMirrored(client: Client) {
  const skills = new SkillsClient(client);
  assert.equal(skills.supported, true);
  assert.deepEqual(await names(skills), ['gh-deploy', 'gh-review', 'other-review']);
  const listed = (await skills.list()).skills;
  const review = listed.find((s) => s.frontmatter.name === 'gh-review')!;
  assert.equal(review.uri, 'skill://gh-review/SKILL.md');
  assert.equal(review.frontmatter.description, 'Review a pull request');
  const main = await skills.read(review);
  assert.equal(main.frontmatter?.name, 'gh-review');
  assert.equal((await skills.read(review, 'references/GUIDE.md')).text, '# Guide\n\nBe kind.\n');
  const other = listed.find((s) => s.frontmatter.name === 'other-review')!;
  assert.equal((await skills.read(other)).body?.trim(), 'How to review a design document.');
  return skills;
}

test('upstream skills mirrored with prefixes, both eras over HTTP, changes followed', async (t) => {
  const dir = testdir({ ...FILES, 'proxy.yaml': '' }, t);
  writeFile(dir, 'proxy.yaml', config(dir));
  const proxy = await startHttpProxy(t, ['-c', join(dir, 'proxy.yaml')], {
    env: { HOME: dir },
    timeoutMs: 60_000,
  });
  const modern = await connectHttp(t, proxy.mcpUrl, {
    options: { versionNegotiation: { mode: 'auto' } },
  });
  const skills = await assertMirrored(modern);
  const legacyClient = eraClient('2025', 'legacy');
  let told = 0;
  legacyClient.setNotificationHandler('notifications/resources/list_changed', async () => {
    told += 1;
  });
  await legacyClient.connect(new StreamableHTTPClientTransport(new URL(proxy.mcpUrl)));
  t.after(() => legacyClient.close());
  await assertMirrored(legacyClient);

  // The failing upstream only warns; its tools are mirrored, and the one without skills is quiet.
  assert.match(
    proxy.stderr(),
    /upstream 'broken': listing its skills failed.*skills store is offline/,
  );
  assert.doesNotMatch(proxy.stderr(), /WARN.*upstream 'plain'/);
  const tools = (await modern.listTools()).tools.map((tool) => tool.name);
  assert.ok(tools.includes('broken_echo') && tools.includes('plain_echo'), tools.join(', '));

  // A new skill upstream, announced by the upstream itself, reaches both clients.
  writeFile(dir, 'gh/lint/SKILL.md', skillMd('lint', 'Lint the code'));
  await modern.callTool({ name: 'gh_reload_skills', arguments: {} });
  await waitFor(async () => (await names(skills)).includes('gh-lint'), 'gh-lint listed');
  await waitFor(() => told > 0, 'resources/list_changed to the 2025 client');
  const lint = (await skills.list()).skills.find((s) => s.frontmatter.name === 'gh-lint')!;
  assert.equal((await skills.read(lint)).body?.trim(), 'How to lint the code.');

  // Unloading the upstream takes its skills away.
  const mgmt = `http://127.0.0.1:${proxy.mgmtPort}`;
  const unload = await fetch(`${mgmt}/proxy/unload`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ plugin: 'gh' }),
  });
  assert.equal(unload.status, 200);
  assert.deepEqual(await names(skills), ['other-review']);
  await assert.rejects(
    modern.readResource({ uri: 'skill://gh-review/SKILL.md' }),
    /not found|No skill|Resource/i,
  );
});

test('a session opened before any skill exists meets the skills of a server loaded later', async (t) => {
  const dir = testdir({ ...FILES, 'proxy.yaml': '' }, t);
  writeFile(
    dir,
    'proxy.yaml',
    config(dir).replace('autoload: [gh, other, plain, broken]', 'autoload: [plain]'),
  );
  const proxy = await startHttpProxy(t, ['-c', join(dir, 'proxy.yaml')], {
    env: { HOME: dir },
    timeoutMs: 60_000,
  });
  const legacy = eraClient('2025', 'early');
  await legacy.connect(new StreamableHTTPClientTransport(new URL(proxy.mcpUrl)));
  t.after(() => legacy.close());
  const skills = new SkillsClient(legacy);
  assert.equal(skills.supported, true, 'the proxy declares skills before it has any');
  assert.deepEqual(await names(skills), []);
  const load = await fetch(`http://127.0.0.1:${proxy.mgmtPort}/proxy/load`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ plugin: 'gh' }),
  });
  assert.equal(load.status, 200);
  assert.deepEqual(await names(skills), ['gh-deploy', 'gh-review']);
});

test('upstream skills over stdio, both eras', async (t) => {
  const dir = testdir({ ...FILES, 'proxy.yaml': '' }, t);
  writeFile(dir, 'proxy.yaml', config(dir));
  for (const era of ['2025', '2026'] as const) {
    const { client } = await connectStdio(t, {
      args: ['-c', join(dir, 'proxy.yaml'), '--mgmt-port', '0'],
      home: dir,
      client: eraClient(era, `stdio-${era}`),
    });
    await assertMirrored(client);
  }
});

test('a principal that may use none of a server’s tools neither lists nor reads its skills', async (t) => {
  const as = await startIntrospectionServer();
  t.after(() => as.close());
  const hour = Math.floor(Date.now() / 1000) + 3600;
  const claims = { active: true, client_id: 'skills-test', exp: hour };
  as.tokens.set('alice-token', { ...claims, sub: 'alice', groups: ['gh'] });
  as.tokens.set('bob-token', { ...claims, sub: 'bob', groups: [] });
  const dir = testdir({ ...FILES, 'proxy.yaml': '' }, t);
  const policy = [
    `oauth_server_url: ${as.url}`,
    'oauth_public_url: http://127.0.0.1/mcp',
    'policy:',
    '  default: deny',
    '  rules:',
    '    - name: gh-team',
    '      tools: ["gh_*"]',
    `      allow: '"gh" in principal.groups'`,
    '    - name: everyone-other',
    '      tools: ["other_*"]',
    `      allow: 'true'`,
  ];
  writeFile(dir, 'proxy.yaml', config(dir, policy));
  const proxy = await startHttpProxy(t, ['-c', join(dir, 'proxy.yaml')], {
    env: { HOME: dir },
    timeoutMs: 60_000,
  });
  for (const era of ['2025', '2026'] as const) {
    const options = era === '2026' ? { versionNegotiation: { mode: 'auto' as const } } : {};
    const alice = new SkillsClient(
      await connectHttp(t, proxy.mcpUrl, { token: 'alice-token', options }),
    );
    assert.deepEqual(await names(alice), ['gh-deploy', 'gh-review', 'other-review']);
    const bobClient = await connectHttp(t, proxy.mcpUrl, { token: 'bob-token', options });
    const bob = new SkillsClient(bobClient);
    assert.deepEqual(await names(bob), ['other-review']);
    // Guessing the URI does not help: neither the entry nor any file is served to bob.
    await assert.rejects(bob.get('skill://gh-review/SKILL.md'), /No skill is served/);
    for (const uri of ['skill://gh-review/SKILL.md', 'skill://gh-review/references/GUIDE.md']) {
      await assert.rejects(bobClient.readResource({ uri }), /not found/i);
    }
    const review = (await alice.list()).skills.find((s) => s.frontmatter.name === 'gh-review')!;
    assert.equal((await alice.read(review, 'references/GUIDE.md')).verified, true);
  }
});
