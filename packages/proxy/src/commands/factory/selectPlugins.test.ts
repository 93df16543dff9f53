import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig, type WrittenConfig } from '@mcpbox/framework';
import { clientKey } from './clientConfig.ts';
import { selectPlugins } from './selectPlugins.ts';

const config = (written: WrittenConfig) => loadConfig({ env: {}, defaults: written });

test('plugins come from --plugins, else plugins_load, else autoload, else enabled entries', () => {
  const all = config({
    plugins_load: ['a'],
    autoload: ['b'],
    plugins: { c: {}, d: { enabled: false }, e: { enabled: true } },
  });
  assert.deepEqual(selectPlugins(['x', 'y', 'x'], all), { names: ['x', 'y'], from: '--plugins' });
  assert.deepEqual(selectPlugins(undefined, all), { names: ['a'], from: 'plugins_load' });
  assert.deepEqual(selectPlugins([], config({ autoload: ['b'], plugins: { c: {} } })), {
    names: ['b'],
    from: 'autoload',
  });
  assert.deepEqual(
    selectPlugins(undefined, config({ plugins: { c: {}, d: { enabled: false } } })),
    {
      names: ['c'],
      from: 'plugins',
    },
  );
  assert.deepEqual(selectPlugins(undefined, config({})), { names: [], from: 'nothing' });
});

test('the client-config key is the server name made safe', () => {
  assert.equal(clientKey('Demo Box'), 'demo-box');
  assert.equal(clientKey('mcp-factory'), 'mcp-factory');
  assert.equal(clientKey('***'), 'mcp');
});
