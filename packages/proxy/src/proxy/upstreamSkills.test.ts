/**
 * The upstream side of mirrored Skills: a real SDK v2 server serving skills (its `SkillCatalog`
 * over a folder) reached through `UpstreamConnection`, its skills served again under a prefix by
 * the SDK's `SkillsExtension` over `UpstreamSkills`, and read back by the SDK's `SkillsClient`,
 * which verifies every file against the entry (digests, sizes, the SKILL.md frontmatter).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { UpstreamConnection, UpstreamSkills } from '@mcpbox/framework';
import { REPO_ROOT } from '@mcpbox/test-utils';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { McpServer } from '@modelcontextprotocol/server';
import { SkillsExtension } from '@modelcontextprotocol/server/ext/skills';
import { testdir } from './__fixtures__/testdir.ts';

const UPSTREAM = join(REPO_ROOT, 'packages/proxy/src/proxy/__fixtures__/skillsUpstream.ts');

export const SKILL_FILES = {
  'skills/review/SKILL.md':
    '---\nname: review\ndescription: Reviews a pull request\n---\n\nRead references/GUIDE.md first.\n',
  'skills/review/references/GUIDE.md': '# Guide\n\nBe kind.\n',
  'skills/deploy/SKILL.md': '---\nname: deploy\ndescription: "Deploys"\n---\nRun it.\n',
};

const warnings: string[] = [];
const logger = {
  debug() {},
  info() {},
  warn: (message: string) => void warnings.push(message),
  error() {},
};

function upstream(dir: string, env: Record<string, string> = {}) {
  return new UpstreamConnection(
    'gh',
    {
      command: process.execPath,
      args: ['--import', 'tsx', UPSTREAM],
      cwd: REPO_ROOT,
      env: { SKILLS_DIR: join(dir, 'skills'), ...env },
    },
    { logger },
  );
}

/** `source` served by an SDK server, with an SDK skills client reading it. */
async function serve(source: UpstreamSkills, t: { after(fn: () => unknown): void }) {
  const server = new McpServer({ name: 'mirror', version: '1.0.0' });
  new SkillsExtension({ source }).attach(server);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'reader', version: '1.0.0' });
  await client.connect(clientSide);
  t.after(() => client.close());
  return new SkillsClient(client);
}

test('skills of an upstream served under its prefix, read and verified by an SDK client', async (t) => {
  const dir = testdir(SKILL_FILES, t);
  const connection = upstream(dir);
  t.after(() => connection.close());
  const listed = await connection.listSkills();
  assert.deepEqual(listed.map((s) => s.uri).sort(), [
    'skill://deploy/SKILL.md',
    'skill://review/SKILL.md',
  ]);
  const read = (uri: string) => connection.readResource({ uri });
  const source = await UpstreamSkills.build(listed, { name: 'gh', prefix: 'Git_Hub', read });
  const skills = await serve(source, t);

  const { skills: entries } = await skills.list();
  assert.deepEqual(entries.map((s) => [s.frontmatter.name, s.uri]).sort(), [
    ['git-hub-deploy', 'skill://git-hub-deploy/SKILL.md'],
    ['git-hub-review', 'skill://git-hub-review/SKILL.md'],
  ]);
  const review = entries.find((s) => s.frontmatter.name === 'git-hub-review')!;
  // The SDK client checks size, digest and frontmatter of every file it reads.
  const main = await skills.read(review);
  assert.equal(main.verified, true);
  assert.equal(main.frontmatter?.name, 'git-hub-review');
  assert.equal(main.body?.trim(), 'Read references/GUIDE.md first.');
  const guide = await skills.read(review, 'references/GUIDE.md');
  assert.equal(guide.uri, 'skill://git-hub-review/references/GUIDE.md');
  assert.equal(guide.text, '# Guide\n\nBe kind.\n');
  const deploy = entries.find((s) => s.frontmatter.name === 'git-hub-deploy')!;
  assert.equal((await skills.read(deploy)).frontmatter?.description, 'Deploys');
  assert.equal((await skills.get('skill://git-hub-review/SKILL.md')).skill.uri, review.uri);

  // Only listed files are forwarded: the upstream's own URIs and unlisted paths are not served.
  assert.equal(await source.read('skill://review/SKILL.md', undefined), undefined);
  assert.equal(
    await source.read('skill://git-hub-review/../deploy/SKILL.md', undefined),
    undefined,
  );
  assert.equal(await source.read('skill://git-hub-review/NOTES.md', undefined), undefined);

  // Without a prefix, entries pass through as the upstream sent them.
  const plain = await UpstreamSkills.build(listed, { name: 'gh', prefix: false, read });
  assert.deepEqual(plain.entries, listed);
  const same = await serve(plain, t);
  const plainReview = (await same.list()).skills.find((s) => s.frontmatter.name === 'review')!;
  assert.equal((await same.read(plainReview, 'references/GUIDE.md')).verified, true);
});

test('an upstream without skills, or whose skills call fails, serves none', async (t) => {
  const dir = testdir(SKILL_FILES, t);
  const none = upstream(dir, { SKILLS_DIR: '' });
  t.after(() => none.close());
  assert.deepEqual(await none.listSkills(), []);
  const broken = upstream(dir, { SKILLS_BROKEN: '1' });
  t.after(() => broken.close());
  await assert.rejects(broken.listSkills(), /skills store is offline/);
});
