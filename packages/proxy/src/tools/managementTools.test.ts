/**
 * The `proxy__*` tools as clients list them: every input value has a schema (the MCP Inspector's
 * `--strict` lint), and the ones that change what runs are marked privileged, so kernel code
 * reaching this proxy (code mode, or an ipybox that registered it) cannot call them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isPrivileged } from '@mcpbox/framework';
import { untypedSchemas } from '@mcpbox/test-utils';
import { dynamicDispatchProxy } from '../__fixtures__/inProcess.ts';

test('proxy__* schemas say what each value is; what changes what runs, or answers approvals and pins, is privileged', async (t) => {
  const proxy = await dynamicDispatchProxy(t, ['echo']);
  const tools = (await proxy.client.listTools()).tools.filter((tool) =>
    tool.name.startsWith('proxy__'),
  );
  assert.ok(tools.some((tool) => tool.name === 'proxy__command'));
  for (const tool of tools) assert.deepEqual(untypedSchemas(tool), [], tool.name);
  assert.deepEqual(
    tools
      .filter(isPrivileged)
      .map((tool) => tool.name)
      .sort(),
    [
      'proxy__approvals',
      'proxy__approve',
      'proxy__command',
      'proxy__deny',
      'proxy__load',
      'proxy__pins_approve',
      'proxy__pins_reject',
      'proxy__reload',
      'proxy__reload_policy',
      'proxy__run',
      'proxy__unload',
    ],
  );
  // A free-form object still takes any named values.
  const listed = await proxy.call('proxy__command', {
    command: 'nosuch',
    args: { a: [1, { b: null }] },
  });
  assert.match(listed.text, /nosuch/);
});
