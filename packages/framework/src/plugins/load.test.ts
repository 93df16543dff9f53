import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { FIXTURE_PLUGINS } from '../__fixtures__/testServer.ts';
import { Catalog } from '../catalog/catalog.ts';
import { listAvailablePlugins, pluginNameOfPath, resolvePlugin } from './load.ts';
import { PluginRegistry } from './registry.ts';

/** Writes a tree of files under a fresh temp dir; removed after the test. */
function testdir(t: { after: (fn: () => void) => void }, files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'mcpbox-load-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  for (const [path, text] of Object.entries(files)) write(root, path, text);
  return root;
}

function write(root: string, path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

const FOLDER_PLUGIN = `
import { greeting } from './helper.ts';
export function register(server: { registerTool: Function }) {
  server.registerTool('live_greet', {}, () => greeting);
}
`;

/** Calls a catalog tool's handler directly (no inputSchema: it takes only the context). */
async function callDirect(catalog: Catalog, name: string): Promise<unknown> {
  const entry = catalog.getTool(name);
  assert.ok(entry, `tool ${name} is in the catalog`);
  return entry.handler({} as never);
}

describe('plugin loader', () => {
  test('resolves name.ts, name.js and name/index.ts in each directory, in order', (t) => {
    const first = testdir(t, { 'a.js': 'export function register() {}' });
    const second = testdir(t, {
      'a.ts': 'export function register() {}',
      'b/index.ts': 'export function register() {}',
    });
    const a = resolvePlugin('a', [first, second]);
    assert.equal(a.kind === 'file' && a.path, join(first, 'a.js'));
    const b = resolvePlugin('b', [first, second]);
    assert.equal(b.kind === 'file' && b.path, join(second, 'b', 'index.ts'));
    assert.equal(b.kind === 'file' && b.watch, join(second, 'b'));
  });

  test('a path names an entry file or a plugin folder holding an index file', (t) => {
    const dir = testdir(t, {
      'weather.ts': 'export function register() {}',
      'demo_full/index.ts': 'export function register() {}',
      'empty/readme.md': 'no index here',
    });
    const file = resolvePlugin(join(dir, 'weather.ts'), []);
    assert.deepEqual(file, {
      kind: 'file',
      path: join(dir, 'weather.ts'),
      root: dir,
      watch: join(dir, 'weather.ts'),
    });
    const folder = resolvePlugin(join(dir, 'demo_full'), []);
    assert.deepEqual(folder, {
      kind: 'file',
      path: join(dir, 'demo_full', 'index.ts'),
      root: join(dir, 'demo_full'),
      watch: join(dir, 'demo_full'),
    });
    const empty = join(dir, 'empty');
    assert.throws(() => resolvePlugin(empty, []), {
      code: 'PLUGIN_NOT_FOUND',
      message: `Plugin '${empty}' not found (looked in: ${empty}, ${empty}/index.{ts,js,mjs})`,
    });
  });

  test('a plugin given by path is named after its folder or its file, without extension', () => {
    assert.equal(pluginNameOfPath('/abs/plugins/demo_full'), 'demo_full');
    assert.equal(pluginNameOfPath('/abs/plugins/demo_full/'), 'demo_full');
    assert.equal(pluginNameOfPath('/abs/plugins/demo_full/index.ts'), 'demo_full');
    assert.equal(pluginNameOfPath('/abs/x/weather.ts'), 'weather');
    assert.equal(pluginNameOfPath('/abs/x/weather.mjs'), 'weather');
    assert.equal(pluginNameOfPath('/abs/x/tools.v2'), 'tools.v2');
  });

  test('falls back to an installed npm package by specifier', () => {
    const source = resolvePlugin('yaml', []);
    assert.equal(source.kind, 'package');
    assert.throws(
      () => resolvePlugin('fs', []),
      /Plugin 'fs' not found \(looked in: npm package fs\)/,
    );
  });

  test('an npm package without register() is refused with a clear error', async () => {
    const registry = new PluginRegistry({ catalog: new Catalog() });
    const result = await registry.loadPlugin('yaml');
    assert.equal(result.error, "Plugin 'yaml' has no register() function");
  });

  for (const [kind, packageJson] of [
    ['ES module', '{"type": "module"}'],
    ['CommonJS', '{}'],
  ]) {
    test(`a fresh load picks up changes in the entry file and in the files it imports (${kind})`, async (t) => {
      const dir = testdir(t, {
        'package.json': packageJson,
        'live/index.ts': FOLDER_PLUGIN,
        'live/helper.ts': "export const greeting = 'version one';",
      });
      const catalog = new Catalog();
      const registry = new PluginRegistry({ catalog, pluginDirs: [dir] });
      assert.equal((await registry.loadPlugin('live')).ok, true);
      assert.equal(await callDirect(catalog, 'live_greet'), 'version one');

      write(dir, 'live/helper.ts', "export const greeting = 'version two';");
      await registry.unloadPlugin('live');
      assert.equal((await registry.loadPlugin('live', { fresh: true })).ok, true);
      assert.equal(await callDirect(catalog, 'live_greet'), 'version two');

      write(dir, 'live/index.ts', FOLDER_PLUGIN.replace("'live_greet'", "'live_greet_v3'"));
      write(dir, 'live/helper.ts', "export const greeting = 'version three';");
      const third = await registry.reloadPlugin('live');
      assert.deepEqual(third.tools, ['live_greet_v3']);
      assert.equal(await callDirect(catalog, 'live_greet_v3'), 'version three');
    });
  }

  test('a syntax error in a plugin is a load error, and the process carries on', async (t) => {
    const dir = testdir(t, { 'broken.ts': 'export function register( {' });
    const registry = new PluginRegistry({ catalog: new Catalog(), pluginDirs: [dir] });
    const result = await registry.loadPlugin('broken');
    assert.equal(result.ok, false);
    assert.match(result.error ?? '', /^Plugin 'broken' failed to import: /);
  });

  for (const kind of ['module', 'commonjs'] as const) {
    test(`a plugin (${kind}) importing a package nobody installed: the error says what to install, and where`, async (t) => {
      const dir = testdir(t, {
        'needs.ts': "import 'left-pad-not-installed/sub';\nexport function register() {}\n",
        ...(kind === 'module' ? { 'package.json': '{ "type": "module" }' } : {}),
      });
      const registry = new PluginRegistry({ catalog: new Catalog(), pluginDirs: [dir] });
      const result = await registry.loadPlugin('needs');
      assert.equal(result.ok, false);
      assert.equal(
        result.error,
        `Plugin 'needs' failed to import: it imports 'left-pad-not-installed', which is not ` +
          `installed where the plugin can find it: run \`npm install left-pad-not-installed\` in ${dir} (or in a folder above it)`,
      );
    });
  }

  test('lists available plugins with descriptions from config.yaml or the module', async () => {
    const available = await listAvailablePlugins([FIXTURE_PLUGINS]);
    const byName = new Map(available.map((p) => [p.name, p.description]));
    assert.equal(byName.get('folder'), 'a plugin in a folder');
    assert.equal(byName.get('alpha'), 'alpha test plugin');
    assert.equal(byName.get('kitchen'), '');
    assert.ok(!byName.has('helper'));
  });
});
