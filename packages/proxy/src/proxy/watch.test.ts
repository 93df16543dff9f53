/**
 * `--watch` in process: a saved change reloads the plugin (debounced); a broken save is
 * reported and the previous version keeps serving; an unloaded plugin is no longer watched.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LoadResult } from '@mcpbox/framework';
import { inProcessProxy } from './__fixtures__/inProcess.ts';
import { testdir, versionPlugin, writeFile } from './__fixtures__/testdir.ts';
import { PluginWatcher } from './watch.ts';

test('a saved change reloads the plugin; a broken save keeps the old version', async (t) => {
  const dir = testdir(
    {
      'counter.ts': versionPlugin('v1'),
      'folder/index.ts': `import { v } from './v.ts'; export function register(s) { s.registerTool('folder_v', {}, () => v); }`,
      'folder/v.ts': `export const v = 'f1';`,
    },
    t,
  );
  const proxy = await inProcessProxy({ plugin_dirs: [dir], autoload: ['counter', 'folder'] });
  t.after(() => proxy.close());
  // The watcher does not hold the process open (the real proxy's server does): keep it alive.
  const keepAlive = setInterval(() => {}, 1000);
  t.after(() => clearInterval(keepAlive));
  const reloads: Array<[string, LoadResult]> = [];
  let waiter: (() => void) | undefined;
  const watcher = new PluginWatcher({
    manager: proxy.manager,
    onReload: (plugin, result) => {
      reloads.push([plugin, result]);
      waiter?.();
    },
  });
  t.after(() => watcher.close());
  const nextReload = () =>
    new Promise<[string, LoadResult]>((resolve) => {
      const seen = reloads.length;
      waiter = () => reloads.length > seen && resolve(reloads[reloads.length - 1]);
    });
  assert.deepEqual(watcher.plugins.sort(), ['counter', 'folder']);

  // Several quick writes (as an editor does) become one reload.
  let reloaded = nextReload();
  writeFile(dir, 'counter.ts', versionPlugin('v1.5'));
  writeFile(dir, 'counter.ts', versionPlugin('v2'));
  const [plugin, result] = await reloaded;
  assert.equal(plugin, 'counter');
  assert.equal(result.ok, true);
  assert.equal((await proxy.call('version')).text, 'v2');
  assert.equal(reloads.length, 1);

  reloaded = nextReload();
  writeFile(dir, 'counter.ts', 'export function register( {');
  const [, broken] = await reloaded;
  assert.equal(broken.ok, false);
  assert.match(broken.error ?? '', /the previous version is still loaded/);
  assert.equal((await proxy.call('version')).text, 'v2');

  // A file a folder plugin imports counts as the plugin's file.
  reloaded = nextReload();
  writeFile(dir, 'folder/v.ts', `export const v = 'f2';`);
  assert.equal((await reloaded)[0], 'folder');
  assert.equal((await proxy.call('folder_v')).text, 'f2');

  await proxy.manager.unload('folder');
  assert.deepEqual(watcher.plugins, ['counter']);
});
