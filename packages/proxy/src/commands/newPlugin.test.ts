/**
 * The plugin scaffold, checked the way a user would: the generated test passes under
 * `node --import tsx --test`, the generated files type-check with the repository's compiler
 * settings, and the plugin loads into the framework's real registry and answers real MCP calls.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { type TestContext, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createServer } from '@mcpbox/framework';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import ts from 'typescript';
import { describeNewPlugin, NewPluginError, newPlugin } from './newPlugin.ts';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

/**
 * A scratch plugin directory inside the repository's ignored `.tmp/`, so the generated code
 * resolves `zod` and `@mcpbox/framework` exactly as a plugin under plugins/ would.
 */
function scratchDir(t: TestContext): string {
  mkdirSync(join(repoRoot, '.tmp'), { recursive: true });
  const dir = mkdtempSync(join(repoRoot, '.tmp', 'new-plugin-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('writes index.ts, tools.ts and tools.test.ts, and the generated test passes', async (t) => {
  const cwd = scratchDir(t);
  const result = await newPlugin('weather', 'plugins', { cwd });
  assert.equal(result.dir, join(cwd, 'plugins', 'weather'));
  assert.deepEqual(readdirSync(result.dir).sort(), ['index.ts', 'tools.test.ts', 'tools.ts']);

  const tools = readFileSync(join(result.dir, 'tools.ts'), 'utf8');
  assert.doesNotMatch(tools, /^import /m, 'tools.ts imports nothing, MCP least of all');
  const index = readFileSync(join(result.dir, 'index.ts'), 'utf8');
  assert.match(index, /'weather_hello'/);
  assert.match(index, /'weather_add'/);
  assert.match(index, /from '\.\/tools\.ts'/);

  const run = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--test', join(result.dir, 'tools.test.ts')],
    // Without NODE_TEST_CONTEXT the child reports as a top-level run (TAP on stdout), not to us.
    { cwd: repoRoot, encoding: 'utf8', env: { ...process.env, NODE_TEST_CONTEXT: undefined } },
  );
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /^# pass 3$/m);
  assert.match(run.stdout, /^# fail 0$/m);

  const text = describeNewPlugin('weather', result, cwd);
  assert.match(text, /^Created plugin "weather" in plugins\/weather\/:/);
  assert.match(text, /mcp-factory --plugin-dir plugins -p weather/);
});

test('a plugin made outside the current folder is described by absolute paths', () => {
  const result = {
    dir: '/home/ann/weather-plugin/weather',
    files: ['index.ts', 'tools.ts', 'tools.test.ts'].map(
      (f) => `/home/ann/weather-plugin/weather/${f}`,
    ),
  };
  const text = describeNewPlugin('weather', result, '/srv/mcpbox');
  assert.match(text, /^Created plugin "weather" in \/home\/ann\/weather-plugin\/weather\/:/);
  assert.match(text, /^ {2}\/home\/ann\/weather-plugin\/weather\/index\.ts$/m);
  assert.match(text, /mcp-factory --plugin-dir \/home\/ann\/weather-plugin -p weather/);
  assert.doesNotMatch(text, /\.\.\//);
});

test('the generated plugin loads into the real registry and its tools answer over MCP', async (t) => {
  const cwd = scratchDir(t);
  await newPlugin('demo_calc', '.', { cwd });
  const server = createServer({ pluginDirs: [cwd] });
  const loaded = await server.registry.loadPlugin('demo_calc', { config: { greeting: 'Howdy' } });
  assert.equal(loaded.ok, true, loaded.error);
  assert.deepEqual(loaded.tools.sort(), ['demo_calc_add', 'demo_calc_hello']);

  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'scaffold-test', version: '1.0.0' });
  await server.connect(serverSide);
  await client.connect(clientSide);
  t.after(async () => {
    await client.close();
    await server.close();
  });

  const { tools } = await client.listTools();
  const add = tools.find((tool) => tool.name === 'demo_calc_add');
  assert.deepEqual(add?.inputSchema.required, ['a', 'b']);
  const text = (r: unknown) => (r as { content: { text: string }[] }).content[0].text;

  const hello = await client.callTool({ name: 'demo_calc_hello', arguments: { who: 'Ann' } });
  assert.equal(text(hello), 'Howdy from demo_calc, Ann!', 'config reaches register()');
  const world = await client.callTool({ name: 'demo_calc_hello', arguments: {} });
  assert.equal(text(world), 'Howdy from demo_calc, World!');
  const sum = await client.callTool({ name: 'demo_calc_add', arguments: { a: 2, b: 40 } });
  assert.equal(text(sum), '2 + 40 = 42');

  const fraction = await client.callTool({ name: 'demo_calc_add', arguments: { a: 1.5, b: 1 } });
  assert.equal(fraction.isError, true, 'the zod schema rejects a non-integer');
  const huge = await client.callTool({
    name: 'demo_calc_add',
    arguments: { a: Number.MAX_SAFE_INTEGER, b: 1 },
  });
  assert.equal(huge.isError, true);
  assert.match(text(huge), /too large/);
});

test('the generated files type-check with the repository compiler settings', async (t) => {
  const cwd = scratchDir(t);
  const result = await newPlugin('typed', '.', { cwd });
  const { config } = ts.readConfigFile(join(repoRoot, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, repoRoot);
  const program = ts.createProgram(result.files, options);
  const ours = new Set(result.files);
  const problems = ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file && ours.has(d.file.fileName))
    .map(
      (d) =>
        `${relative(cwd, d.file!.fileName)}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
    );
  assert.deepEqual(problems, []);
});

test('the generated files pass the repository Biome lint and format check', async (t) => {
  // Outside the repository: Biome skips git-ignored paths such as .tmp/ even when named.
  const cwd = mkdtempSync(join(tmpdir(), 'new-plugin-lint-'));
  t.after(() => rmSync(cwd, { recursive: true, force: true }));
  const result = await newPlugin('a_rather_long_plugin_name_of_forty_chars', '.', { cwd });
  // The repository's rules, with its file selection widened to this scratch folder.
  writeFileSync(
    join(cwd, 'biome.json'),
    JSON.stringify({
      root: true,
      extends: [join(repoRoot, 'biome.json')],
      vcs: { enabled: false },
      files: { includes: ['**'] },
    }),
  );
  const run = spawnSync(join(repoRoot, 'node_modules/.bin/biome'), ['check', result.dir], {
    cwd,
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.match(run.stdout + run.stderr, /Checked 3 files/);
});

test('an existing plugin folder is refused and left untouched', async (t) => {
  const cwd = scratchDir(t);
  mkdirSync(join(cwd, 'plugins', 'taken'), { recursive: true });
  writeFileSync(join(cwd, 'plugins', 'taken', 'index.ts'), '// mine\n');
  await assert.rejects(newPlugin('taken', 'plugins', { cwd }), (error: unknown) => {
    assert.ok(error instanceof NewPluginError);
    assert.equal(error.code, 'PLUGIN_EXISTS');
    assert.equal(
      error.message,
      'plugins/taken already exists; not overwriting it. Choose another name or remove it first.',
    );
    return true;
  });
  assert.equal(readFileSync(join(cwd, 'plugins', 'taken', 'index.ts'), 'utf8'), '// mine\n');
  assert.deepEqual(readdirSync(join(cwd, 'plugins', 'taken')), ['index.ts']);
});

test('a single-file plugin of the same name is refused (the loader would pick it first)', async (t) => {
  const cwd = scratchDir(t);
  writeFileSync(join(cwd, 'echo.ts'), 'export function register() {}\n');
  await assert.rejects(newPlugin('echo', '.', { cwd }), {
    code: 'PLUGIN_EXISTS',
    message: 'A plugin named "echo" already exists: echo.ts. Choose another name.',
  });
  assert.deepEqual(readdirSync(cwd), ['echo.ts']);
});

test('names that are not lowercase identifiers are refused before anything is written', async (t) => {
  const cwd = scratchDir(t);
  for (const name of ['Weather', '1st', 'my-tool', '', '../escape', 'a b', 'x'.repeat(41)]) {
    await assert.rejects(newPlugin(name, 'plugins', { cwd }), {
      code: 'INVALID_PLUGIN_NAME',
      message: new RegExp(
        `^Invalid plugin name "${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}": use lowercase letters`,
      ),
    });
  }
  assert.deepEqual(readdirSync(cwd), [], 'not even the plugin directory was created');
});
