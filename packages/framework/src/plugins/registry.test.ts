import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Catalog } from '../catalog/catalog.ts';
import type { CatalogKind } from '../catalog/types.ts';
import type { PluginServer } from '../contract/plugin.ts';
import { PluginRegistry } from './registry.ts';
import { pluginList, pluginStatus, toolList } from './text.ts';

const FIXTURES = join(fileURLToPath(new URL('.', import.meta.url)), '../__fixtures__/plugins');

function setup() {
  const catalog = new Catalog();
  const registry = new PluginRegistry({ catalog, pluginDirs: [FIXTURES] });
  const changes: CatalogKind[][] = [];
  catalog.onChange((kinds) => changes.push([...kinds].sort()));
  return { catalog, registry, changes };
}

/** Everything a client could list, to compare catalogs before and after. */
function snapshot(catalog: Catalog) {
  return JSON.stringify({
    tools: catalog.listTools(),
    resources: catalog.listResources(),
    templates: catalog.listTemplates(),
    prompts: catalog.listPrompts(),
    owner: catalog.getTool('alpha_echo')?.plugin,
  });
}

describe('PluginRegistry', () => {
  test('loads a plugin from a directory with its tools, resources, templates and prompts', async () => {
    const { catalog, registry, changes } = setup();
    const result = await registry.loadPlugin('alpha');
    assert.deepEqual(result, {
      ok: true,
      plugin: 'alpha',
      tools: ['alpha_echo'],
      resources: ['memo://alpha', 'alpha://items/{id}'],
      prompts: ['alpha_prompt'],
    });
    assert.deepEqual(
      catalog.listTools().map((t) => t.name),
      ['alpha_echo'],
    );
    assert.deepEqual(catalog.listTools()[0].inputSchema.required, ['message']);
    assert.equal(registry.findToolOwner('alpha_echo'), 'alpha');
    assert.equal(registry.getPlugin('alpha')?.description, 'alpha test plugin');
    assert.equal(registry.getPlugin('alpha')?.source.kind, 'file');
    // One commit, one change naming every kind touched.
    assert.deepEqual(changes, [['prompts', 'resources', 'tools']]);
  });

  test('a second load of the same name fails and changes nothing', async () => {
    const { catalog, registry } = setup();
    await registry.loadPlugin('alpha');
    const before = snapshot(catalog);
    const again = await registry.loadPlugin('alpha');
    assert.equal(again.ok, false);
    assert.equal(again.error, "Plugin 'alpha' already loaded");
    assert.equal(snapshot(catalog), before);
  });

  for (const [plugin, message] of [
    ['clash_tool', "Tool collision loading 'clash_tool': 'alpha_echo' (in 'alpha')"],
    ['clash_resource', "Resource collision loading 'clash_resource': memo://alpha (in 'alpha')"],
    [
      'clash_template',
      "Resource template collision loading 'clash_template': alpha://items/{id} (in 'alpha')",
    ],
    ['clash_prompt', "Prompt collision loading 'clash_prompt': alpha_prompt (in 'alpha')"],
  ]) {
    test(`a collision (${plugin}) leaves the catalog exactly as it was`, async () => {
      const { catalog, registry, changes } = setup();
      await registry.loadPlugin('alpha');
      const before = snapshot(catalog);
      const result = await registry.loadPlugin(plugin);
      assert.equal(result.ok, false);
      assert.equal(result.error, message);
      assert.deepEqual(result.tools, []);
      assert.equal(snapshot(catalog), before);
      // Its non-colliding tool was not committed either, and nothing was announced.
      assert.equal(catalog.getTool('clash_fresh'), undefined);
      assert.equal(changes.length, 1);
      assert.equal(registry.isLoaded(plugin), false);
    });
  }

  test('a throwing register() leaves the catalog unchanged and reports its message', async () => {
    const { catalog, registry } = setup();
    await registry.loadPlugin('alpha');
    const before = snapshot(catalog);
    const result = await registry.loadPlugin('thrower');
    assert.equal(result.ok, false);
    assert.equal(result.error, "Plugin 'thrower' register() failed: database unreachable");
    assert.equal(snapshot(catalog), before);
    assert.equal(catalog.getTool('thrower_tool'), undefined);
  });

  test('a missing plugin names every place looked in', async () => {
    const { registry } = setup();
    const result = await registry.loadPlugin('nope_not_here');
    assert.equal(result.ok, false);
    assert.equal(
      result.error,
      `Plugin 'nope_not_here' not found (looked in: ${FIXTURES}, npm package nope_not_here)`,
    );
  });

  test('a module without register() is refused', async () => {
    const { registry } = setup();
    const result = await registry.loadPlugin('no_register');
    assert.equal(result.error, "Plugin 'no_register' has no register() function");
  });

  test('register on the default export and the tool() short form work', async () => {
    const { catalog, registry } = setup();
    const result = await registry.loadPlugin('default_export');
    assert.equal(result.ok, true);
    assert.deepEqual(catalog.getTool('default_ping')?.definition, {
      name: 'default_ping',
      description: 'Answer pong',
      inputSchema: { type: 'object', properties: {} },
    });
  });

  test('an already-imported module can be loaded, with a prefix on tools and prompts', async () => {
    const { catalog, registry } = setup();
    const module = {
      register(server: PluginServer) {
        server.registerTool('ping', {}, () => 'pong');
        server.registerTool('svc_status', {}, () => 'up');
        server.registerPrompt('ask', {}, () => 'ask');
        server.registerResource('r', 'svc://r', {}, () => 'r');
      },
    };
    const result = await registry.loadPlugin('svc', { module, prefix: 'svc' });
    assert.deepEqual(result.tools, ['svc_ping', 'svc_status']);
    assert.deepEqual(result.prompts, ['svc_ask']);
    assert.deepEqual(result.resources, ['svc://r']);
    assert.ok(catalog.getTool('svc_ping'));
  });

  test('unload removes tools, resources, templates and prompts', async () => {
    const { catalog, registry, changes } = setup();
    await registry.loadPlugin('alpha');
    const result = await registry.unloadPlugin('alpha');
    assert.deepEqual(result, {
      ok: true,
      plugin: 'alpha',
      tools: ['alpha_echo'],
      removed: ['alpha_echo'],
      resources: ['memo://alpha', 'alpha://items/{id}'],
      prompts: ['alpha_prompt'],
    });
    assert.equal(catalog.listTools().length, 0);
    assert.equal(catalog.listResources().length, 0);
    assert.equal(catalog.listTemplates().length, 0);
    assert.equal(catalog.listPrompts().length, 0);
    assert.equal(catalog.matchTemplate('alpha://items/1'), undefined);
    assert.equal(changes.length, 2);
    const again = await registry.unloadPlugin('alpha');
    assert.equal(again.error, "Plugin 'alpha' not loaded");
    // After unload the name is free again.
    assert.equal((await registry.loadPlugin('alpha')).ok, true);
  });

  test('reload swaps old entries for new ones in one change', async () => {
    const { catalog, registry, changes } = setup();
    const v1 = {
      register(server: PluginServer) {
        server.registerTool('svc_a', {}, () => 'a1');
        server.registerTool('svc_b', {}, () => 'b1');
      },
    };
    const v2 = {
      register(server: PluginServer) {
        server.registerTool('svc_a', {}, () => 'a2');
        server.registerTool('svc_c', {}, () => 'c2');
      },
    };
    await registry.loadPlugin('svc', { module: v1 });
    const result = await registry.reloadPlugin('svc', { module: v2 });
    assert.deepEqual(result.tools, ['svc_a', 'svc_c']);
    assert.deepEqual(registry.allTools(), ['svc_a', 'svc_c']);
    assert.equal(await catalog.getTool('svc_a')?.handler({}), 'a2');
    assert.equal(changes.length, 2);
    assert.equal(
      (await registry.reloadPlugin('nope')).error,
      "Plugin 'nope' not loaded, use load()",
    );
  });

  test('a failed reload (throwing register or collision) keeps the old version serving', async () => {
    const { catalog, registry } = setup();
    await registry.loadPlugin('alpha');
    await registry.loadPlugin('svc', {
      module: { register: (s: PluginServer) => void s.registerTool('svc_a', {}, () => 'old') },
    });
    const before = snapshot(catalog);
    const throwing = await registry.reloadPlugin('svc', {
      module: {
        register() {
          throw new Error('syntax error in new code');
        },
      },
    });
    assert.equal(throwing.error, "Plugin 'svc' register() failed: syntax error in new code");
    const colliding = await registry.reloadPlugin('svc', {
      module: { register: (s: PluginServer) => void s.registerTool('alpha_echo', {}, () => 'x') },
    });
    assert.equal(colliding.error, "Tool collision loading 'svc': 'alpha_echo' (in 'alpha')");
    assert.equal(snapshot(catalog), before);
    assert.equal(await catalog.getTool('svc_a')?.handler({}), 'old');
  });

  test('handles disable, enable and remove a committed tool', async () => {
    const { catalog, registry, changes } = setup();
    let handle: ReturnType<PluginServer['registerTool']> | undefined;
    await registry.loadPlugin('h', {
      module: {
        register(server: PluginServer) {
          handle = server.registerTool('h_tool', {}, () => 'x');
        },
      },
    });
    assert.ok(handle);
    handle.disable();
    assert.deepEqual(catalog.listTools(), []);
    handle.enable();
    handle.update({ description: 'now described' });
    assert.equal(catalog.listTools()[0].description, 'now described');
    handle.remove();
    assert.equal(catalog.getTool('h_tool'), undefined);
    assert.equal(changes.length, 5);
  });

  test('concurrent loads of one name: exactly one wins', async () => {
    const { registry } = setup();
    const results = await Promise.all([registry.loadPlugin('alpha'), registry.loadPlugin('alpha')]);
    assert.deepEqual(results.map((r) => r.ok).sort(), [false, true]);
  });

  test('summary and text helpers', async () => {
    const { registry } = setup();
    await registry.loadPlugin('alpha');
    await registry.loadPlugin('folder');
    const summary = registry.getSummary();
    assert.deepEqual(summary.totals, { plugins: 2, tools: 2, resources: 2, prompts: 1 });
    assert.deepEqual(registry.allTools().sort(), ['alpha_echo', 'folder_greet']);
    assert.equal(
      pluginStatus({ server: 'demo', transport: 'http', port: 8000, summary }),
      [
        'Server:    demo',
        'Transport: http',
        'Port:      8000',
        'Plugins:   2 loaded',
        'Tools:     2 registered',
        'Resources: 2',
        'Prompts:   1',
      ].join('\n'),
    );
    assert.equal(toolList(registry.allTools()), 'alpha_echo\nfolder_greet');
    assert.equal(toolList([]), '(no tools loaded)');
    assert.equal(
      pluginList([
        { name: 'folder', description: 'a plugin in a folder' },
        { name: 'alpha', description: 'alpha test plugin', loaded: true },
      ]),
      '  alpha — alpha test plugin (loaded)\n  folder — a plugin in a folder',
    );
    assert.equal(pluginList([]), '(no plugins found in plugin directories)');
  });

  test('onUnload cleanups end their own registration: unload, reload (old only), failure, closeAll', async () => {
    const { catalog, registry } = setup();
    const events: string[] = [];
    let generation = 0;
    let failNext: 'throw' | 'collide' | undefined;
    const module = {
      register(server: PluginServer) {
        const mine = ++generation;
        server.onUnload(async () => {
          // Cleanup of the old registration runs while the new one already serves.
          events.push(`cleanup ${mine} (serving: ${catalog.getTool('gen')?.plugin ?? 'none'})`);
        });
        server.onUnload(() => {
          throw new Error(`cleanup ${mine} failed`);
        });
        server.registerTool(failNext === 'collide' ? 'taken' : 'gen', {}, () => `g${mine}`);
        if (failNext === 'throw') throw new Error('no');
      },
    };
    await registry.loadPlugin('other', {
      module: { register: (s: PluginServer) => s.registerTool('taken', {}, () => '') },
    });
    assert.ok((await registry.loadPlugin('gen', { module })).ok);
    assert.deepEqual(events, []);

    assert.ok((await registry.reloadPlugin('gen')).ok);
    assert.deepEqual(events, ['cleanup 1 (serving: gen)']);

    for (const how of ['throw', 'collide'] as const) {
      failNext = how;
      assert.equal((await registry.reloadPlugin('gen')).ok, false);
    }
    failNext = undefined;
    // Each failed registration's own cleanups ran; generation 2 still serves, untouched.
    assert.deepEqual(events.slice(1), ['cleanup 3 (serving: gen)', 'cleanup 4 (serving: gen)']);

    assert.ok((await registry.unloadPlugin('gen')).ok);
    assert.equal(events.at(-1), 'cleanup 2 (serving: none)');

    assert.ok((await registry.loadPlugin('gen', { module })).ok);
    await registry.closeAll();
    await registry.closeAll();
    assert.deepEqual(events.slice(4), ['cleanup 5 (serving: gen)']);
  });
});
