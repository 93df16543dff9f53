/**
 * Skills through mcp-factory: a config `skills_dir` and a folder plugin's `skills/` folder,
 * listed and read by `mcp-client skills` and `inspect` (real SDK v2 clients) over stdio in both
 * eras; over Streamable HTTP, a file saved into the `skills_dir` reaches clients of both eras as
 * `resources/list_changed`, and the new skill is listed.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import {
  FACTORY_BIN,
  freePort,
  removeAtExit,
  runServerBin,
  skillsListener,
} from '@mcpbox/test-utils';
import { clientBin, killGroup } from '../../repl/__fixtures__/driveClient.ts';

const skillMd = (name: string, description: string) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n\nHow to ${name}.\n`;

/** A config with a `skills_dir`, and a folder plugin with skills of its own. */
function fixture(): { dir: string; server: string[]; skillsDir: string } {
  const dir = removeAtExit(mkdtempSync(join(tmpdir(), 'factory-skills-')));
  const files: Record<string, string> = {
    'skills/pdf-forms/SKILL.md': skillMd('pdf-forms', 'Fill PDF forms'),
    'skills/pdf-forms/references/FIELDS.md': '# Fields\n\nName, date.\n',
    'plugins/helper/index.ts': `export function register(s) { s.registerTool('ping', {}, () => 'pong'); }\n`,
    'plugins/helper/skills/lint-code/SKILL.md': skillMd('lint-code', 'Lint the code'),
    'mcpbox.yaml': 'skills_dir: ./skills\ntool_log_dir: ./logs\n',
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const config = join(dir, 'mcpbox.yaml');
  const plugin = join(dir, 'plugins', 'helper');
  return {
    dir,
    skillsDir: join(dir, 'skills'),
    server: [
      process.execPath,
      FACTORY_BIN,
      '--config',
      config,
      '-p',
      plugin,
      '--log-level',
      'warn',
    ],
  };
}

async function mcpClient(t: TestContext, args: string[], home: string) {
  const child = spawn(process.execPath, [clientBin, ...args], {
    env: { ...process.env, HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  t.after(() => killGroup(child));
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  const [code] = await once(child, 'exit');
  return { code: code as number | null, stdout, stderr };
}

for (const protocol of ['2025-11-25', '2026-07-28'] as const) {
  test(`mcp-client skills and inspect over stdio (${protocol})`, async (t) => {
    const fx = fixture();
    const via = ['--protocol', protocol, '--', ...fx.server];
    const listed = await mcpClient(t, ['skills', ...via], fx.dir);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(JSON.parse(listed.stdout), [
      {
        name: 'lint-code',
        description: 'Lint the code',
        uri: 'skill://lint-code/SKILL.md',
        files: ['SKILL.md'],
      },
      {
        name: 'pdf-forms',
        description: 'Fill PDF forms',
        uri: 'skill://pdf-forms/SKILL.md',
        files: ['SKILL.md', 'references/FIELDS.md'],
      },
    ]);

    const read = await mcpClient(
      t,
      ['skills', '--read', 'pdf-forms/references/FIELDS.md', ...via],
      fx.dir,
    );
    assert.equal(read.code, 0, read.stderr);
    assert.equal(read.stdout, '# Fields\n\nName, date.\n');

    const unknown = await mcpClient(t, ['skills', '--read', 'nope', ...via], fx.dir);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /no skill "nope" \(its skills: lint-code, pdf-forms\)/);

    const inspected = await mcpClient(t, ['inspect', ...via], fx.dir);
    assert.equal(inspected.code, 0, inspected.stderr);
    const report = JSON.parse(inspected.stdout);
    assert.deepEqual(
      report.skills.map((s: { name: string }) => s.name),
      ['lint-code', 'pdf-forms'],
    );
    assert.deepEqual(report.capabilities.extensions['io.modelcontextprotocol/skills'], {
      directoryRead: true,
    });
  });
}

test('a skill saved into skills_dir reaches HTTP clients of both eras', async (t) => {
  const fx = fixture();
  const port = await freePort();
  // Without `--log-level warn`: the ready line is an info line.
  const [, bin, ...args] = fx.server.slice(0, -2);
  const started = await runServerBin(
    t,
    bin,
    [...args, '--http', String(port)],
    /serving MCP at (\S+)/,
    { env: { HOME: fx.dir } },
  );
  assert.ok(started.match, started.stderr());
  const url = `http://127.0.0.1:${port}/mcp`;
  const clients = [await skillsListener(url, 'legacy', t), await skillsListener(url, 'modern', t)];
  // The 2026 client's subscriptions/listen stream is open once acknowledged.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const heard = clients.map(({ changed, heard }) => changed(heard() + 1));
  mkdirSync(join(fx.skillsDir, 'csv-tables'));
  writeFileSync(join(fx.skillsDir, 'csv-tables', 'SKILL.md'), skillMd('csv-tables', 'CSV'));
  await Promise.all(heard);
  for (const { skills } of clients) {
    const names = (await skills.list()).skills.map((s) => s.frontmatter.name);
    assert.deepEqual(names, ['csv-tables', 'lint-code', 'pdf-forms']);
  }
});
