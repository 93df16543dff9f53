/**
 * Admin surfaces (`server.publishAdmin`): kept with the registration that published them —
 * listed after a load, replaced by a reload, gone after an unload — and a failed load publishes
 * nothing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Catalog } from '../catalog/catalog.ts';
import type { AdminSurface } from '../contract/admin.ts';
import type { PluginServer } from '../contract/plugin.ts';
import { PluginRegistry } from './registry.ts';

const surface = (title: string): AdminSurface => ({ title, sections: [] });

function publisher(title: string, options: { fail?: boolean } = {}) {
  return {
    register(server: PluginServer) {
      server.publishAdmin('main', surface(title));
      server.registerTool('t', {}, () => 'x');
      if (options.fail) throw new Error('register failed on purpose');
    },
  };
}

test('a published admin surface lives and dies with its registration', async () => {
  const registry = new PluginRegistry({ catalog: new Catalog() });
  let changes = 0;
  registry.onAdminChange(() => changes++);
  const titles = () =>
    registry.adminSurfaces().map((p) => `${p.plugin}/${p.name}:${p.surface.title}`);

  assert.equal((await registry.loadPlugin('p', { module: publisher('v1') })).ok, true);
  assert.deepEqual(titles(), ['p/main:v1']);
  assert.equal(changes, 1);

  assert.equal((await registry.reloadPlugin('p', { module: publisher('v2') })).ok, true);
  assert.deepEqual(titles(), ['p/main:v2']);

  // A reload that fails keeps the old registration, and its surface.
  const failed = await registry.reloadPlugin('p', { module: publisher('v3', { fail: true }) });
  assert.equal(failed.ok, false);
  assert.deepEqual(titles(), ['p/main:v2']);

  // A load that fails publishes nothing.
  assert.equal(
    (await registry.loadPlugin('q', { module: publisher('q', { fail: true }) })).ok,
    false,
  );
  assert.deepEqual(titles(), ['p/main:v2']);

  assert.equal((await registry.unloadPlugin('p')).ok, true);
  assert.deepEqual(titles(), []);
  assert.equal(changes, 3);
});
