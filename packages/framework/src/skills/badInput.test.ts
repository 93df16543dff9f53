// Bad skills in a folder: each is skipped with a warning naming its file and what is wrong, and
// the good skills beside it are still served to a real client.
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { createServer } from '../server.ts';
import { skillMd, skillsFolder } from './__fixtures__/skillsFolder.ts';

test('bad skills are skipped with a warning naming them; the others are served', async (t) => {
  const outside = skillsFolder({ secret: { 'KEY.txt': 'do not serve me' } });
  const dir = skillsFolder({
    good: { 'SKILL.md': skillMd('good', 'A good skill') },
    bare: { 'SKILL.md': 'No frontmatter at all.\n' },
    misnamed: { 'SKILL.md': skillMd('another-name', 'Name is not the folder') },
    huge: { 'SKILL.md': skillMd('huge', 'Too big to serve') },
    leaky: { 'SKILL.md': skillMd('leaky', 'Links out of the folder') },
  });
  // 17 MiB: over the SDK's 16 MiB per skill.
  writeFileSync(join(dir, 'huge', 'blob.bin'), Buffer.alloc(17 * 1024 * 1024));
  symlinkSync(join(outside, 'secret', 'KEY.txt'), join(dir, 'leaky', 'KEY.txt'));
  mkdirSync(join(dir, 'empty-folder'));
  // What a kernel importing the skill's script leaves beside it: never a file of the skill.
  mkdirSync(join(dir, 'good', '__pycache__'));
  writeFileSync(join(dir, 'good', '__pycache__', 'good.cpython-311.pyc'), 'bytecode');

  const warnings: string[] = [];
  const logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (msg: string) => warnings.push(msg),
    error: () => undefined,
  };
  const server = createServer({ name: 'bad', transport: 'http', port: 0, logger });
  const url = (await server.start()) as string;
  t.after(() => server.close());
  const report = await server.skills.add('config', dir, { kind: 'config' });
  assert.deepEqual(report.served, ['good']);

  const about = (folder: string) =>
    warnings.filter((w) => w.includes(`config: ${folder}`)).join('\n');
  assert.match(about('bare'), /^skills: config: bare\/SKILL\.md: .*frontmatter/m);
  assert.match(about('misnamed'), /another-name/);
  assert.match(about('huge'), /huge: .*exceeds the limit/);
  assert.ok(warnings.some((w) => /'huge' is not served: .* over the limit of 512 files/.test(w)));
  assert.match(about('leaky'), /KEY\.txt/);
  assert.equal(report.warnings.length >= 4, true, JSON.stringify(report.warnings));

  const client = new Client({ name: 'bad-input', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  t.after(() => client.close());
  const listed = await new SkillsClient(client).list();
  assert.deepEqual(
    listed.skills.map((s) => s.frontmatter.name),
    ['good'],
  );
  assert.doesNotMatch(JSON.stringify(listed.skills), /__pycache__/);
  await assert.rejects(
    client.readResource({ uri: 'skill://good/__pycache__/good.cpython-311.pyc' }),
  );
  // Nothing outside the folder is readable through the skills' URIs.
  await assert.rejects(client.readResource({ uri: 'skill://leaky/KEY.txt' }));
});
