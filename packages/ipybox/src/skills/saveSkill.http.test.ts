/**
 * A skill saved from code is served at once, over HTTP, to another client: a 2025 client saves
 * a cell as a skill (approved by elicitation), and a 2026 client — a second real SDK v2 client
 * of its own session — lists it with `skills/list`, reads its files (digests checked by the
 * SDK), and imports it in a kernel of its own; its own save is asked as `input_required`, and
 * declined.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { versionOfEra } from '@mcpbox/framework';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { startHttpIpybox, tempWorkspace, textOf } from '../server/testing.ts';

const CODE = 'def word_count(text):\n    return len(text.split())';

test('saved by one client, listed, read and imported by another of the other era', async (t) => {
  const ws = await tempWorkspace();
  t.after(() => ws.remove());
  const box = await startHttpIpybox(ws.dir, { args: ['--approval', 'elicit'] });
  t.after(() => box.close());
  const saver = await box.connect({
    capabilities: { elicitation: {} },
    versionNegotiation: { mode: 'legacy' },
  });
  const asked: string[] = [];
  saver.setRequestHandler('elicitation/create', async (request) => {
    asked.push(request.params.message);
    return { action: 'accept', content: { approve: true } };
  });
  const reader = await box.connect({
    capabilities: { elicitation: {} },
    versionNegotiation: { mode: { pin: versionOfEra('modern') } },
  });
  reader.setRequestHandler('elicitation/create', async (request) => {
    asked.push(request.params.message);
    return { action: 'decline' };
  });
  const skills = new SkillsClient(reader);
  assert.deepEqual((await skills.list()).skills, [], 'nothing saved yet');

  const ran = await saver.callTool({
    name: 'execute_ipython_cell',
    arguments: { code: `${CODE}\nword_count('one two three')` },
  });
  assert.equal(textOf(ran), '3');
  const saved = await saver.callTool({
    name: 'save_skill',
    arguments: { name: 'word-count', description: 'Counts the words of a text.', cells: [-1] },
  });
  assert.equal(saved.isError, undefined, textOf(saved));
  assert.equal(asked.length, 1);

  const listed = await skills.list();
  assert.deepEqual(
    listed.skills.map((s) => [s.uri, s.frontmatter.description]),
    [['skill://word-count/SKILL.md', 'Counts the words of a text.']],
  );
  const skill = listed.skills[0];
  assert.ok(skill);
  const script = await skills.read(skill, 'word_count.py'); // the SDK checks its digest
  assert.match(script.text ?? '', /def word_count\(text\):/);
  const manifest = JSON.parse((await skills.read(skill, 'manifest.json')).text ?? '{}');
  assert.equal(manifest.name, 'word-count');

  const imported = await reader.callTool({
    name: 'execute_ipython_cell',
    arguments: { code: "from skills.word_count import word_count\nword_count('a b')" },
  });
  assert.equal(textOf(imported).split('\n')[0], '2');

  // The 2026 client is asked too (input_required), and its refusal writes nothing.
  const refused = await reader.callTool({
    name: 'save_skill',
    arguments: { name: 'not-wanted', description: 'Never saved.', code: 'x = 1' },
  });
  assert.match(textOf(refused), /skill not-wanted not saved, nothing was written/);
  assert.equal(asked.length, 2);
  assert.deepEqual(
    (await skills.list()).skills.map((s) => s.frontmatter.name),
    ['word-count'],
  );
});
