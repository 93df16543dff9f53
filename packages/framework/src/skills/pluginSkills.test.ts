// A plugin's skills follow the plugin: its folder's `skills/` and what it registers are served
// on load, clients of both eras hear `resources/list_changed` when a reload changes them, and
// an unload takes them away.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { skillsListener } from '@mcpbox/test-utils';
import type { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { ERAS } from '../protocol/era.ts';
import { createServer } from '../server.ts';
import { skillMd, skillsFolder } from './__fixtures__/skillsFolder.ts';

const names = async (skills: SkillsClient) =>
  (await skills.list()).skills.map((s) => s.frontmatter.name);

test('plugin skills: served on load, announced on reload, gone on unload', async (t) => {
  const dir = skillsFolder({
    'helper/skills/lint-code': { 'SKILL.md': skillMd('lint-code', 'Lint the code') },
    'helper/extra/format-code': { 'SKILL.md': skillMd('format-code', 'Format the code') },
  });
  writeFileSync(
    join(dir, 'helper', 'index.ts'),
    `export function register(server) {
       server.registerTool('helper_ping', {}, () => 'pong');
       server.registerSkills('extra');
     }\n`,
  );
  const server = createServer({ name: 'plugins', transport: 'http', port: 0, pluginDirs: [dir] });
  const url = (await server.start()) as string;
  t.after(() => server.close());
  const loaded = await server.registry.loadPlugin('helper');
  assert.equal(loaded.ok, true, loaded.error);
  assert.deepEqual(
    server.skills.list().map((s) => [s.name, s.origin, s.kind]),
    [
      ['format-code', 'plugin:helper#2', 'plugin'],
      ['lint-code', 'plugin:helper', 'plugin'],
    ],
  );

  const clients = [];
  for (const era of ERAS) clients.push(await skillsListener(url, era, t));
  // The 2026 client's subscriptions/listen stream is open once acknowledged.
  await new Promise((resolve) => setTimeout(resolve, 300));
  for (const { skills } of clients)
    assert.deepEqual(await names(skills), ['format-code', 'lint-code']);

  mkdirSync(join(dir, 'helper', 'skills', 'test-code'));
  writeFileSync(
    join(dir, 'helper', 'skills', 'test-code', 'SKILL.md'),
    skillMd('test-code', 'Test'),
  );
  const reloaded = clients.map(({ changed, heard }) => changed(heard() + 1));
  assert.equal((await server.registry.reloadPlugin('helper')).ok, true);
  await Promise.all(reloaded);
  for (const { skills } of clients) {
    assert.deepEqual(await names(skills), ['format-code', 'lint-code', 'test-code']);
  }

  const unloaded = clients.map(({ changed, heard }) => changed(heard() + 1));
  assert.equal((await server.registry.unloadPlugin('helper')).ok, true);
  await Promise.all(unloaded);
  assert.deepEqual(server.skills.list(), []);
  assert.equal(server.skills.empty, true);
});
