/**
 * Plugins given by path on the command line: a folder holding `index.ts` and a single file both
 * load, named after the folder and the file (`demo_full`, `weather`), through the real
 * `mcp-factory` and `mcp-proxy`; relative paths count from the current directory, and the stdio
 * launch line mcp-factory prints carries them as absolute paths, so it works from anywhere.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '@mcpbox/framework';
import { connectStdio, FACTORY_BIN, freePort, REPO_ROOT } from '@mcpbox/test-utils';
import type { Client } from '@modelcontextprotocol/client';
import { testdir } from '../proxy/__fixtures__/testdir.ts';
import { ExitError } from './exit.ts';
import { namePluginPaths } from './pluginPaths.ts';

const DEMO_FULL = join(REPO_ROOT, 'plugins', 'demo_full');
const WEATHER = `export function register(server) {
  server.registerTool('weather_now', {}, () => 'sunny');
}
`;

const toolNames = async (client: Client) =>
  (await client.listTools()).tools.map((tool) => tool.name).sort();

test('paths in a start-up list become plugins entries named after the folder or file', () => {
  const config = loadConfig({
    env: {},
    defaults: { plugins: { weather: { greeting: 'Hi' }, other: { path: '/elsewhere/other.ts' } } },
  });
  const named = namePluginPaths(
    ['echo', '/abs/plugins/demo_full', './x/weather.ts'],
    config,
    '/cwd',
  );
  assert.deepEqual(named.names, ['echo', 'demo_full', 'weather']);
  assert.deepEqual(named.config.plugins.demo_full, { path: '/abs/plugins/demo_full' });
  // Settings written for the name stay; the path is added.
  assert.deepEqual(named.config.plugins.weather, { greeting: 'Hi', path: '/cwd/x/weather.ts' });
  assert.deepEqual(
    [...named.paths],
    [
      ['demo_full', '/abs/plugins/demo_full'],
      ['weather', '/cwd/x/weather.ts'],
    ],
  );
  assert.equal(config.plugins.weather.path, undefined, 'the given config is left as it was');

  // Two different plugins under one name are refused, naming both paths.
  assert.throws(() => namePluginPaths(['/a/weather.ts', '/b/weather'], config, '/'), ExitError);
  assert.throws(() => namePluginPaths(['/a/other.ts'], config, '/'), ExitError);
  // The same path twice is one plugin.
  assert.deepEqual(namePluginPaths(['/a/w.ts', '/a/w.ts'], config, '/').names, ['w', 'w']);
});

test('mcp-factory -p /abs/folder /abs/file.ts serves both, named demo_full and weather', async (t) => {
  const dir = testdir({ 'x/weather.ts': WEATHER }, t);
  const { client, stderr } = await connectStdio(t, {
    bin: FACTORY_BIN,
    args: ['-p', DEMO_FULL, join(dir, 'x', 'weather.ts')],
    home: dir,
  });
  assert.deepEqual(await toolNames(client), ['demo_text_stats', 'weather_now']);
  assert.match(stderr(), /serving 2 plugins \(demo_full, weather\)/);
  await client.close();
});

test('mcp-proxy -a with a folder path and a relative file path, named demo_full and weather', async (t) => {
  const dir = testdir({ 'x/weather.ts': WEATHER }, t);
  const { client, stderr } = await connectStdio(t, {
    args: ['--mgmt-port', String(await freePort()), '-a', DEMO_FULL, './x/weather.ts'],
    home: dir,
    cwd: dir,
  });
  const names = await toolNames(client);
  assert.ok(names.includes('demo_text_stats') && names.includes('weather_now'), stderr());
  assert.match(stderr(), /loaded demo_full: /);
  assert.match(stderr(), /loaded weather: weather_now/);
  await client.close();
});

test('the stdio launch line printed for a relative plugin path works from another folder', async (t) => {
  const dir = testdir({ 'x/weather.ts': WEATHER }, t);
  const child = spawn(
    process.execPath,
    [FACTORY_BIN, '--http', '0', '--health-port', '0', '-p', './x/weather.ts'],
    { cwd: dir, env: { ...process.env, HOME: dir }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  t.after(() => {
    child.kill('SIGKILL');
    return exited.then(() => undefined);
  });
  const printed = await new Promise<string>((resolve, reject) => {
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const found = /Or let the client start it over stdio:\n([\s\S]*?\n})\n/.exec(stderr);
      if (found) resolve(found[1]);
    });
    child.once('exit', (code) => reject(new Error(`mcp-factory exited ${code}:\n${stderr}`)));
  });
  const launch = Object.values(
    (JSON.parse(printed) as { mcpServers: Record<string, { args: string[] }> }).mcpServers,
  )[0];
  assert.deepEqual(launch.args.slice(1), ['-p', join(dir, 'x', 'weather.ts')]);

  const { client } = await connectStdio(t, {
    bin: launch.args[0],
    args: launch.args.slice(1),
    home: dir,
    cwd: REPO_ROOT,
  });
  assert.deepEqual(await toolNames(client), ['weather_now']);
  await client.close();
  child.kill('SIGKILL');
  await exited;
});
