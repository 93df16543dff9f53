/**
 * `proxy__search` and `proxy__run`'s "did you mean", both answered from the catalog's one search
 * index (the one code mode's `search_tools` uses), in process with an SDK client.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dynamicDispatchProxy, inProcessProxy, REPO_PLUGINS } from '../__fixtures__/inProcess.ts';

test('proxy__search ranks loaded tools by what they do, and says so when nothing matches', async (t) => {
  const proxy = await dynamicDispatchProxy(t, ['echo', 'greet']);
  await proxy.call('proxy__load', { plugin: 'counter' });

  const found = await proxy.call('proxy__search', { query: 'say hello to a person', limit: 2 });
  assert.equal(found.isError, false);
  const lines = found.text.split('\n');
  assert.ok(lines.length <= 2);
  assert.match(lines[0], /^greet \(greet\): /);
  const dynamic = await proxy.call('proxy__search', { query: 'which version' });
  assert.match(dynamic.text, /^version \(counter, via proxy__run\): which version$/m);
  assert.deepEqual(await proxy.call('proxy__search', { query: 'xylophone quasar' }), {
    text: "(no tool matches 'xylophone quasar')",
    isError: false,
  });
});

test('proxy__run answers an unknown name with the closest matches', async (t) => {
  const proxy = await dynamicDispatchProxy(t, ['echo']);
  await proxy.call('proxy__load', { plugin: 'counter' });
  const typo = await proxy.call('proxy__run', { tool: 'versions' });
  assert.deepEqual(typo, {
    text: "Error: 'versions' not found. Did you mean: version? Available dynamic tools: version",
    isError: true,
  });
  const upper = await proxy.call('proxy__run', { tool: 'echo_uper' });
  assert.match(upper.text, /^Error: 'echo_uper' not found\. Did you mean: echo, echo_upper\?/);
});

test('without dynamic_dispatch there is no proxy__search', async (t) => {
  const proxy = await inProcessProxy({ plugin_dirs: [REPO_PLUGINS], autoload: ['echo'] });
  t.after(() => proxy.close());
  const tools = (await proxy.client.listTools()).tools.map((tool) => tool.name);
  assert.ok(!tools.includes('proxy__search'));
  assert.ok(!tools.includes('proxy__run'));
});
