/**
 * `save_skill` end to end over stdio, with real SDK v2 clients and real Python kernels: code that
 * worked (named by its cell) is saved after the user approves it by elicitation, its files carry the digests the
 * manifest names, and a fresh kernel imports it as `skills.<module>`. A bad name, a taken name
 * and a declined approval write nothing.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import {
  registerEverything,
  runCell,
  type StdioIpybox,
  startStdioIpybox,
  tempWorkspace,
  textOf,
} from '../server/testing.ts';

const CODE = [
  'from mcptools.everything import echo',
  '',
  'def shout(text):',
  "    return echo.run({'message': text.upper()})",
].join('\n');

async function saveSkill(client: Client, args: Record<string, unknown>) {
  return client.callTool({ name: 'save_skill', arguments: { description: 'Shouts.', ...args } });
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

describe('save_skill over stdio (approval: elicit)', () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  let box: StdioIpybox;
  let answer: 'accept' | 'decline' = 'accept';
  const asked: string[] = [];
  before(async () => {
    ws = await tempWorkspace();
    box = await startStdioIpybox(ws.dir, {
      args: ['--approval', 'elicit'],
      clientOptions: { capabilities: { elicitation: {} } },
    });
    box.client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params.message);
      return answer === 'accept'
        ? { action: 'accept', content: { approve: true } }
        : { action: 'decline' };
    });
    await registerEverything(box.client);
  });
  after(async () => {
    await box?.close();
    await ws?.remove();
  });

  test('approved: the skill folder is written, and a fresh kernel imports it', async () => {
    answer = 'accept';
    asked.length = 0;
    await runCell(box.client, CODE);
    assert.equal(textOf(await runCell(box.client, "print(shout('hi'))")), 'Echo: HI');
    asked.length = 0;
    const saved = await saveSkill(box.client, {
      name: 'shout-echo',
      cells: [-2], // the cell before the last: the one that defined shout
      notes: 'Pass any text; it comes back in capitals.',
    });
    assert.equal(saved.isError, undefined, textOf(saved));
    assert.match(textOf(saved), /Saved skill shout-echo .*from skills\.shout_echo import/);
    assert.equal(asked.length, 1, 'the save was put to the user once');
    assert.match(asked[0] ?? '', /'save_skill' of the MCP server 'ipybox'/);
    assert.match(asked[0] ?? '', /"name": "shout-echo"/);

    const folder = join(ws.dir, 'skills', 'shout-echo');
    const skillMd = await readFile(join(folder, 'SKILL.md'), 'utf8');
    assert.match(skillMd, /^---\nname: shout-echo\ndescription: "Shouts\."\n---\n/);
    assert.match(skillMd, /Pass any text; it comes back in capitals\./);
    assert.match(skillMd, /`mcptools\.everything\.echo`/);
    const script = await readFile(join(folder, 'shout_echo.py'), 'utf8');
    assert.match(script, /^# Skill shout-echo.*\nfrom mcptools\.everything import echo\n/);
    const manifest = JSON.parse(await readFile(join(folder, 'manifest.json'), 'utf8'));
    assert.deepEqual(manifest.mcptools, ['mcptools.everything', 'mcptools.everything.echo']);
    assert.deepEqual(manifest.files.map((f: { path: string }) => f.path).sort(), [
      'SKILL.md',
      '__init__.py',
      'shout_echo.py',
    ]);
    for (const file of manifest.files as { path: string; sha256: string }[]) {
      const bytes = await readFile(join(folder, file.path));
      assert.equal(createHash('sha256').update(bytes).digest('hex'), file.sha256, file.path);
    }
    assert.deepEqual(await readdir(join(ws.dir, '.skills-staging')), [], 'no staging left');

    const fresh = await box.client.callTool({ name: 'new_kernel', arguments: {} });
    const kernel = textOf(fresh);
    const imported = await box.client.callTool({
      name: 'execute_ipython_cell',
      arguments: { code: "from skills.shout_echo import shout\nprint(shout('again'))", kernel },
    });
    assert.equal(textOf(imported), 'Echo: AGAIN');
  });

  test('a cell that did not work in this kernel is named as such; nothing is written', async () => {
    await runCell(box.client, "raise ValueError('no')");
    const result = await saveSkill(box.client, { name: 'from-cells', cells: [999] });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /no cell 999 that worked in this kernel: cells that worked: \d/);
    const both = await saveSkill(box.client, { name: 'from-cells', cells: [-1], code: 'x = 1' });
    assert.match(textOf(both), /give either code or cells/);
    assert.equal(await exists(join(ws.dir, 'skills', 'from-cells')), false);
  });

  test('a name that is a path is refused before anyone is asked; nothing is written', async () => {
    asked.length = 0;
    for (const name of ['../escape', 'a/b', '..', 'Bad_Name']) {
      const result = await saveSkill(box.client, { name, code: 'x = 1' });
      assert.equal(result.isError, true, name);
      assert.match(
        textOf(result),
        name === 'Bad_Name'
          ? /is not valid: use 1-64 lowercase/
          : /is a path: a skill name is one folder name/,
      );
    }
    assert.equal(asked.length, 0);
    assert.equal(await exists(join(ws.dir, 'escape')), false);
    assert.equal(await exists(join(ws.dir, 'skills', 'a')), false);
  });

  test('declined: not saved, nothing written; a taken name is not overwritten', async () => {
    answer = 'decline';
    const declined = await saveSkill(box.client, { name: 'never-saved', code: 'x = 1' });
    assert.equal(declined.isError, true);
    assert.match(textOf(declined), /skill never-saved not saved, nothing was written: .*rejected/);
    assert.equal(await exists(join(ws.dir, 'skills', 'never-saved')), false);

    answer = 'accept';
    const taken = await saveSkill(box.client, { name: 'shout-echo', code: 'x = 2' });
    assert.equal(taken.isError, true);
    assert.match(textOf(taken), /a skill named 'shout-echo' already exists.*replace: true/);
    const script = await readFile(join(ws.dir, 'skills', 'shout-echo', 'shout_echo.py'), 'utf8');
    assert.match(script, /def shout/, 'the first skill is untouched');

    const replaced = await saveSkill(box.client, {
      name: 'shout-echo',
      code: 'x = 2',
      replace: true,
    });
    assert.match(textOf(replaced), /^Replaced skill shout-echo/);
  });
});
