/**
 * The console's call feed keeps what it shows, not the calls' arguments: a real `mcp-proxy`
 * (console on, as by default) takes 100 calls of 2–3.9 MB each over HTTP, and its heap after a
 * full garbage collection has not grown by anything near that. Before, each string "cut to 200
 * characters" was a V8 slice of its argument and kept all of it alive (≈ 390 MB in 100 calls of
 * 3.9 MB), and a long list was kept whole: the feed now keeps copies and is bounded in bytes.
 * The heap is read inside the proxy by a test plugin that forces the collection.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectHttp, startHttpProxy } from '@mcpbox/test-utils';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { testdir } from '../proxy/__fixtures__/testdir.ts';

/** `swallow` takes any text and answers `ok`; `heap` collects garbage and answers the heap in use. */
const HEAP_PLUGIN = `
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');
export function register(server) {
  server.registerTool('swallow', {
    inputSchema: { type: 'object', properties: { data: { type: 'string' } }, required: ['data'] },
  }, () => 'ok');
  server.registerTool('heap', { inputSchema: { type: 'object' } }, () => {
    gc();
    gc();
    return String(process.memoryUsage().heapUsed);
  });
}
`;

const MB = 1024 * 1024;
/** Nearly the HTTP body limit (4 MiB): the largest argument a client can send. */
const ARGUMENT = Math.floor(3.9 * MB);

test('100 calls of 2–3.9 MB leave the heap of mcp-proxy (console on) without their arguments', async (t) => {
  const home = testdir({ 'plugins/heap.ts': HEAP_PLUGIN }, t);
  const proxy = await startHttpProxy(t, ['-d', `${home}/plugins`, '-a', 'heap'], {
    env: { HOME: home, MCP_MGMT_TOKEN: '' },
  });
  const client = await connectHttp(t, proxy.mcpUrl);
  // Should the proxy die under the load, the test fails with its stderr instead of waiting on
  // a call nobody will answer.
  const died = proxy.exited.then((code) => {
    throw new Error(`mcp-proxy exited (${code}) during the calls:\n${proxy.stderr()}`);
  });
  died.catch(() => {});
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const answer = client.callTool({ name, arguments: args });
    const result = (await Promise.race([answer, died])) as CallToolResult;
    const text = (result.content[0] as { text: string }).text;
    assert.equal(result.isError ?? false, false, text);
    return text;
  };
  const heap = async () => Number(await call('heap'));

  // Warm up (lazy modules, JIT, the first log writes) before the baseline.
  for (let i = 0; i < 3; i++) await call('swallow', { data: `warm ${i} ${'w'.repeat(MB)}` });
  const before = await heap();
  const numbers = Array.from({ length: 500_000 }, (_, k) => k % 10);
  for (let i = 0; i < 100; i++) {
    // Distinct every time, with a secret-looking start the feed must show redacted and cut;
    // every other call also carries a long list, which no string cut makes short.
    const data = `call ${i} password=hunter2 ${String(i % 10).repeat(ARGUMENT)}`;
    await call('swallow', i % 2 === 0 ? { data } : { data: data.slice(0, MB), numbers });
  }
  const grown = (await heap()) - before;
  assert.ok(grown < 100 * MB, `the heap grew by ${Math.round(grown / MB)} MB over the 100 calls`);

  // The feed still shows the calls, redacted and cut short (the list as its JSON, cut).
  const page = await (await fetch(`http://127.0.0.1:${proxy.mgmtPort}/console/calls`)).text();
  assert.match(page, /call 99 password=\[REDACTED\]/);
  assert.ok(!page.includes('hunter2'));
  assert.match(page, /&quot;numbers&quot;:\[0,1,2,3,4,5,6,7,8,9,0,1,2/);
  assert.ok(page.length < MB, `the calls page is ${page.length} characters`);
});
