/**
 * A skill saved from code, approved and then viewed in the console, in a real browser: headless
 * Chromium (puppeteer-core) against a real `mcp-proxy` with ipybox (`approval: channel`). A real
 * SDK v2 client's `save_skill` waits until the operator approves it on the ipybox Approvals
 * page; the Skills page then lists the skill as "saved from code", shows its files with their
 * digests and the text of each file, escaped. Takes the README's screenshot of the page.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { connectHttp, startHttpProxy, textOf } from '@mcpbox/test-utils';
import { openConsole, submitForm } from '@mcpbox/test-utils/browser';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { testdir } from '../proxy/__fixtures__/testdir.ts';

const TOKEN = 'skills-browser-token-0123456789ab';
const WAIT = { timeout: 120_000 };
const CODE = "def tag(text):\n    return '<b>' + text + '</b>'";

test('the console in Chromium: a save approved by the operator, then the skill and its files', async (t) => {
  const dir = testdir({}, t);
  const config = join(dir, 'proxy.yaml');
  const workspace = join(dir, 'workspace');
  const { writeFile } = await import('node:fs/promises');
  await writeFile(
    config,
    `plugins:\n  ipybox:\n    workspace: ${JSON.stringify(workspace)}\n    approval: channel\n`,
  );
  const proxy = await startHttpProxy(t, ['--mgmt-token', TOKEN, '-c', config, '-a', 'ipybox'], {
    env: { HOME: dir },
    timeoutMs: 120_000,
  });
  const base = `http://127.0.0.1:${proxy.mgmtPort}`;
  const client = await connectHttp(t, proxy.mcpUrl, {
    name: 'skills-saver',
    options: { versionNegotiation: { mode: 'legacy' } },
  });

  const { chromium, page, text } = await openConsole(
    t,
    { base, token: TOKEN, path: '/console/skills', name: 'skills-console' },
    WAIT,
  );
  assert.match(await text(), /No skill is served/);

  // The save waits for the operator, on ipybox's Approvals page.
  const saving = client.callTool(
    {
      name: 'save_skill',
      arguments: { name: 'bold-tag', description: 'Wraps text in <b> tags.', code: CODE },
    },
    { timeout: 300_000 },
  );
  await page.goto(`${base}/console/admin/ipybox/ipybox/approvals`, WAIT);
  const row = '#admin-approvals tbody tr';
  await page.waitForSelector(row, WAIT);
  assert.match(await page.$eval(row, (r) => r.textContent ?? ''), /save_skill[\s\S]*bold-tag/);
  await submitForm(page, `${row} button[data-action="approve"]`, WAIT);
  const saved = await saving;
  assert.match(textOf(saved), /^Saved skill bold-tag/);

  // Listed at once, as clients see it, with where it comes from.
  await page.goto(`${base}/console/skills`, WAIT);
  const listed = await page.$eval('#skills tr[data-skill="bold-tag"]', (r) => r.textContent ?? '');
  assert.match(listed, /bold-tag[\s\S]*Wraps text in <b> tags\.[\s\S]*saved from code/);
  assert.match(listed, /4$/, 'four files');
  const skills = new SkillsClient(client);
  assert.deepEqual(
    (await skills.list()).skills.map((s) => s.frontmatter.name),
    ['bold-tag'],
  );

  // Its files, SKILL.md shown first; the script's markup stays text.
  await page.click('#skills tr[data-skill="bold-tag"] a');
  await page.waitForSelector('#skill-files', WAIT);
  const files = await page.$$eval('#skill-files tbody tr', (rows) =>
    rows.map((r) => r.getAttribute('data-file')),
  );
  assert.deepEqual(files.sort(), ['SKILL.md', '__init__.py', 'bold_tag.py', 'manifest.json']);
  assert.match(await page.$eval('#skill-file', (p) => p.textContent ?? ''), /^---\nname: bold-tag/);
  await page.screenshot({ path: join(chromium.screenshots, 'console-skills.png'), fullPage: true });
  await Promise.all([
    page.waitForNavigation(WAIT),
    page.click('#skill-files tr[data-file="bold_tag.py"] a'),
  ]);
  const script = await page.$eval('#skill-file', (p) => p.textContent ?? '');
  assert.match(script, /return '<b>' \+ text \+ '<\/b>'/);
  assert.equal(await page.$('#skill-file b'), null, 'markup in a file stays text');
});
