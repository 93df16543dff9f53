/**
 * `--watch`: a saved change reloads the plugin (debounced); a broken save is reported and the
 * previous version keeps serving; an unloaded plugin is no longer watched; saves that replace
 * the file by a rename (editors, `sed -i`) keep reloading round after round, in process and in
 * the real `mcp-proxy --watch` driven by `sed -i`.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import type { LoadResult } from '@mcpbox/framework';
import { connectStdio, freePort } from '@mcpbox/test-utils';
import { inProcessProxy } from '../__fixtures__/inProcess.ts';
import { testdir, versionPlugin, writeFile } from './__fixtures__/testdir.ts';
import { PluginWatcher } from './watch.ts';

/**
 * An in-process proxy serving `counter.ts` (tool `version`) and the folder plugin `folder`
 * (tool `folder_v`, its value in `folder/v.ts`), both watched; `nextReload()` settles with the
 * next reload the watcher reports.
 */
async function watchedProxy(t: TestContext, counter: string, folder: string, debounceMs?: number) {
  const dir = testdir(
    {
      'counter.ts': versionPlugin(counter),
      'folder/index.ts': `import { v } from './v.ts'; export function register(s) { s.registerTool('folder_v', {}, () => v); }`,
      'folder/v.ts': `export const v = '${folder}';`,
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
    debounceMs,
    onReload: (plugin, result) => {
      reloads.push([plugin, result]);
      waiter?.();
    },
  });
  t.after(() => watcher.close());
  await watcher.ready;
  // A watch gone deaf fails with a message instead of hanging the test.
  const nextReload = (change: string) =>
    new Promise<[string, LoadResult]>((resolve, reject) => {
      const seen = reloads.length;
      const deaf = setTimeout(() => reject(new Error(`no reload after ${change}`)), 60_000);
      waiter = () => {
        if (reloads.length === seen) return;
        clearTimeout(deaf);
        resolve(reloads[reloads.length - 1]);
      };
    });
  return { dir, proxy, watcher, reloads, nextReload };
}

test('a saved change reloads the plugin; a broken save keeps the old version', async (t) => {
  const { dir, proxy, watcher, reloads, nextReload } = await watchedProxy(t, 'v1', 'f1');
  assert.deepEqual(watcher.plugins.sort(), ['counter', 'folder']);

  // Several quick writes (as an editor does) become one reload.
  let reloaded = nextReload('two writes');
  writeFile(dir, 'counter.ts', versionPlugin('v1.5'));
  writeFile(dir, 'counter.ts', versionPlugin('v2'));
  const [plugin, result] = await reloaded;
  assert.equal(plugin, 'counter');
  assert.equal(result.ok, true);
  assert.equal((await proxy.call('version')).text, 'v2');
  assert.equal(reloads.length, 1);

  reloaded = nextReload('a broken save');
  writeFile(dir, 'counter.ts', 'export function register( {');
  const [, broken] = await reloaded;
  assert.equal(broken.ok, false);
  assert.match(broken.error ?? '', /the previous version is still loaded/);
  assert.equal((await proxy.call('version')).text, 'v2');

  // A file a folder plugin imports counts as the plugin's file.
  reloaded = nextReload('a save of folder/v.ts');
  writeFile(dir, 'folder/v.ts', `export const v = 'f2';`);
  assert.equal((await reloaded)[0], 'folder');
  assert.equal((await proxy.call('folder_v')).text, 'f2');

  await proxy.manager.unload('folder');
  assert.deepEqual(watcher.plugins, ['counter']);
});

/** Saves the way many editors do: move the old file aside, write the new one, drop the old. */
function replaceByRename(root: string, path: string, text: string): void {
  writeFile(root, `${path}.new`, text);
  renameSync(join(root, path), join(root, `${path}.old`));
  renameSync(join(root, `${path}.new`), join(root, path));
  rmSync(join(root, `${path}.old`));
}

test('saves that replace a file by rename keep reloading, round after round', async (t) => {
  const { dir, proxy, nextReload } = await watchedProxy(t, 'v0', 'f0', 100);
  for (const round of [1, 2, 3]) {
    let reloaded = nextReload(`round ${round} of counter.ts`);
    replaceByRename(dir, 'counter.ts', versionPlugin(`v${round}`));
    assert.deepEqual((await reloaded).slice(0, 1), ['counter']);
    assert.equal((await proxy.call('version')).text, `v${round}`);

    reloaded = nextReload(`round ${round} of folder/v.ts`);
    replaceByRename(dir, 'folder/v.ts', `export const v = 'f${round}';`);
    assert.deepEqual((await reloaded).slice(0, 1), ['folder']);
    assert.equal((await proxy.call('folder_v')).text, `f${round}`);
  }
});

test('mcp-proxy --watch: five `sed -i` saves, five reloads a client sees', async (t) => {
  const dir = testdir(
    {
      'weather/index.ts': `import { v } from './v.ts'; export function register(s) { s.registerTool('weather_v', {}, () => v); }`,
      'weather/v.ts': `export const v = 'w0';`,
    },
    t,
  );
  const { client, stderr } = await connectStdio(t, {
    args: ['--mgmt-port', String(await freePort()), '-d', dir, '-a', 'weather', '--watch'],
    home: dir,
  });
  const answer = async () => {
    const result = await client.callTool({ name: 'weather_v', arguments: {} });
    return (result.content as Array<{ text?: string }>)[0]?.text;
  };
  assert.equal(await answer(), 'w0');

  for (const round of [1, 2, 3, 4, 5]) {
    // sed -i writes a temporary file in the folder and renames it over v.ts.
    execFileSync('sed', ['-i', `s/w${round - 1}/w${round}/`, join(dir, 'weather', 'v.ts')]);
    // The reload is an unload and a load: poll until the new code answers.
    let text = await answer();
    for (let i = 0; i < 300 && text !== `w${round}`; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      text = await answer();
    }
    assert.equal(text, `w${round}`, `round ${round}: no reload after sed -i\n${stderr()}`);
  }
  // Before the temp folder goes (t.after runs in order): the proxy writes its log into HOME.
  await client.close();
});
