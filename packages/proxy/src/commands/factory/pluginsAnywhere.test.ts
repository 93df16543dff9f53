/**
 * Plugins outside the clone: a scaffold in a temp folder served by the real `mcp-factory`, an
 * ES-module plugin in `~/mcp_plugins` served (and reloaded) by the real `mcp-proxy`, both
 * importing `zod` and `@mcpbox/framework` they do not have; and plugins that bring their own
 * `zod` keep it, as CommonJS and as ES modules.
 *
 * Each test closes its client before it ends: `t.after` runs in registration order, so removing
 * the temp folder would otherwise race the child writing into it (its HOME).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { connectStdio, FACTORY_BIN, freePort, runProxyCli } from '@mcpbox/test-utils';
import type { Client } from '@modelcontextprotocol/client';
import { testdir } from '../../proxy/__fixtures__/testdir.ts';

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as Array<{ text?: string }>).map((c) => c.text).join('');
  return { text, isError: result.isError === true };
}

test('mcp-proxy new-plugin in a folder outside the clone, then mcp-factory -d DIR -p NAME', async (t) => {
  const home = testdir({}, t);
  const dir = join(home, 'weather-plugin');
  const created = await runProxyCli(['new-plugin', 'weather', dir]);
  assert.equal(created.code, 0, created.stderr);

  const { client, stderr } = await connectStdio(t, {
    bin: FACTORY_BIN,
    args: ['-d', dir, '-p', 'weather'],
    home,
    cwd: home,
  });
  assert.deepEqual(await call(client, 'weather_add', { a: 2, b: 40 }), {
    text: '2 + 40 = 42',
    isError: false,
  });
  // The scaffold's zod schema, from the host's zod, still validates.
  const fraction = await call(client, 'weather_add', { a: 1.5, b: 1 });
  assert.equal(fraction.isError, true, stderr());
  assert.equal(
    (await call(client, 'weather_hello', { who: 'Ann' })).text,
    'Hello from weather, Ann!',
  );
  await client.close();
});

test('an ES-module plugin in ~/mcp_plugins uses the host zod, framework and SDK, reload too', async (t) => {
  const home = testdir(
    {
      'mcp_plugins/shared/package.json': '{ "type": "module" }',
      'mcp_plugins/shared/index.ts': `
import { errorMessage } from '@mcpbox/framework';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/server';
import { z } from 'zod';
export function register(server) {
  server.registerTool('shared_probe', { inputSchema: { n: z.number().int() } }, ({ n }) =>
    [n, errorMessage(new Error('from the framework')), typeof LATEST_PROTOCOL_VERSION].join(' | '));
}
`,
    },
    t,
  );
  const { client, stderr } = await connectStdio(t, {
    args: ['--mgmt-port', String(await freePort()), '-a', 'shared'],
    home,
    cwd: home,
  });
  const expected = { text: '7 | from the framework | string', isError: false };
  assert.deepEqual(await call(client, 'shared_probe', { n: 7 }), expected, stderr());
  assert.equal((await call(client, 'shared_probe', { n: 0.5 })).isError, true);
  // A reload imports the plugin afresh: the host's packages still resolve.
  const reloaded = await call(client, 'proxy__reload', { plugin: 'shared' });
  assert.equal(reloaded.isError, false, reloaded.text);
  assert.deepEqual(await call(client, 'shared_probe', { n: 7 }), expected);
  await client.close();
});

test("a plugin's own node_modules/zod wins over the host's, as CommonJS and as ES module", async (t) => {
  const probe = (tool: string) => `
import * as zod from 'zod';
export function register(server) {
  server.registerTool('${tool}', {}, () => String(zod.marker ?? 'the host zod'));
}
`;
  const dir = testdir(
    {
      'node_modules/zod/package.json': '{ "name": "zod", "version": "0.0.0", "main": "index.js" }',
      'node_modules/zod/index.js': "exports.marker = 'its own zod';",
      // No package.json above: a CommonJS module to Node.
      'cjs_own.ts': probe('cjs_own'),
      'esm_own/package.json': '{ "type": "module" }',
      'esm_own/index.ts': probe('esm_own'),
    },
    t,
  );
  const { client } = await connectStdio(t, {
    bin: FACTORY_BIN,
    args: ['-d', dir, '-p', 'cjs_own', 'esm_own'],
    home: dir,
    cwd: dir,
  });
  assert.equal((await call(client, 'cjs_own')).text, 'its own zod');
  assert.equal((await call(client, 'esm_own')).text, 'its own zod');
  await client.close();
});
