// The skills seam: origins added to `server.skills` are served to real SDK v2 clients of both
// eras over Streamable HTTP, with their origin known; a later origin's skill of the same name is
// not served (and logged); removing the first origin serves the second's.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { removeAtExit } from '@mcpbox/test-utils';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { ERAS, type Era, versionOfEra } from '../protocol/era.ts';
import { createServer } from '../server.ts';

type After = { after: (fn: () => Promise<void> | void) => void };

/** A folder of skill folders: `{ name: { file: text } }`. */
export function skillsFolder(skills: Record<string, Record<string, string>>): string {
  const dir = removeAtExit(mkdtempSync(join(tmpdir(), 'mcpbox-skills-')));
  for (const [name, files] of Object.entries(skills)) {
    for (const [file, text] of Object.entries(files)) {
      const path = join(dir, name, file);
      mkdirSync(join(path, '..'), { recursive: true });
      writeFileSync(path, text);
    }
  }
  return dir;
}

export function skillMd(name: string, description: string, body = 'Do it well.'): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n\n${body}\n`;
}

async function connect(url: string, era: Era, t: After): Promise<SkillsClient> {
  const client = new Client(
    { name: `skills-${era}`, version: '1.0.0' },
    { versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: versionOfEra(era) } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  t.after(() => client.close());
  return new SkillsClient(client);
}

for (const era of ERAS) {
  test(`${era}: origins in server.skills are served, first origin wins a name`, async (t) => {
    const first = skillsFolder({
      'pdf-forms': {
        'SKILL.md': skillMd('pdf-forms', 'Fill PDF forms'),
        'references/FIELDS.md': '# Fields\n',
      },
    });
    const second = skillsFolder({
      'pdf-forms': { 'SKILL.md': skillMd('pdf-forms', 'Another take on PDF forms') },
      csv: { 'SKILL.md': skillMd('csv', 'Read CSV files') },
    });
    const warnings: string[] = [];
    const logger = {
      debug: () => undefined,
      info: () => undefined,
      warn: (msg: string) => warnings.push(msg),
      error: () => undefined,
    };
    const server = createServer({ name: 'skills', transport: 'http', port: 0, logger });
    const url = (await server.start()) as string;
    t.after(() => server.close());
    await server.skills.add('config', first, { kind: 'config' });
    const report = await server.skills.add('saved', second, { kind: 'saved' });
    assert.deepEqual(report.served, ['csv']);
    assert.deepEqual(
      report.shadowed.map((s) => [s.name, s.servedBy]),
      [['pdf-forms', 'config']],
    );
    assert.ok(warnings.some((w) => /'pdf-forms' of saved is not served: config serves/.test(w)));

    const skills = await connect(url, era, t);
    assert.equal(skills.supported, true);
    assert.equal(skills.directoryRead, true);
    const listed = await skills.list();
    assert.deepEqual(
      listed.skills.map((s) => [s.uri, s.frontmatter.description]),
      [
        ['skill://csv/SKILL.md', 'Read CSV files'],
        ['skill://pdf-forms/SKILL.md', 'Fill PDF forms'],
      ],
    );
    const pdf = listed.skills[1];
    const manifest = await skills.read(pdf);
    assert.equal(manifest.body?.trim(), 'Do it well.');
    const fields = await skills.read(pdf, 'references/FIELDS.md');
    assert.equal(fields.text, '# Fields\n');
    assert.deepEqual(
      server.skills.list().map((s) => [s.name, s.origin, s.kind]),
      [
        ['csv', 'saved', 'saved'],
        ['pdf-forms', 'config', 'config'],
      ],
    );

    await server.skills.remove('config');
    const after = await skills.list();
    assert.equal(
      after.skills.find((s) => s.frontmatter.name === 'pdf-forms')?.frontmatter.description,
      'Another take on PDF forms',
    );
  });
}

test('a folder that cannot be read is refused, naming it; the registry is unchanged', async () => {
  const server = createServer({ name: 'skills' });
  await assert.rejects(server.skills.add('config', '/nonexistent/skills', { kind: 'config' }), {
    code: 'SKILLS_FOLDER',
    message: /the folder \/nonexistent\/skills cannot be read/,
  });
  assert.equal(server.skills.empty, true);
  await server.close();
});
