/**
 * Results by reference in one server, through a real SDK v2 client: which results are previewed
 * and which pass whole, what a call from code gets, text results, the store's cap, bad reads.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { firstText } from '@mcpbox/test-utils';
import { type CallToolResult, Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { z } from 'zod';
import type { ToolContext } from '../contract/tool.ts';
import { createServer } from '../server.ts';
import { parseResultPreview } from './settings.ts';

type After = { after(fn: () => unknown): void };

const records = (n: number) => Array.from({ length: n }, (_, i) => ({ id: i, price: i % 10 }));

async function setUp(t: After) {
  const server = createServer({
    resultPreview: parseResultPreview({
      max_chars: 5000,
      max_result_bytes: 100_000,
      tools: { never_previewed: false },
    }),
  });
  const json = (n: number) => JSON.stringify(records(n));
  server.registerTool('big_json', { description: 'records' }, () => json(2000));
  server.registerTool('never_previewed', { description: 'records' }, () => json(2000));
  server.registerTool('search', { description: 'an object' }, () =>
    JSON.stringify({ query: 'price < 10', total: 2000, items: records(2000) }),
  );
  server.registerTool('small', { description: 'small' }, () => json(3));
  server.registerTool('huge', { description: 'over the cap' }, () => json(10_000));
  server.registerTool('log', { description: 'text' }, () =>
    Array.from({ length: 3000 }, (_, i) => `line ${i}${i % 1000 === 7 ? ' ERROR' : ''}`).join('\n'),
  );
  server.registerTool('picture', { description: 'an image and text' }, () => ({
    content: [
      { type: 'image' as const, data: 'iVBORw0KGgo=', mimeType: 'image/png' },
      { type: 'text' as const, text: json(2000) },
    ],
  }));
  server.registerTool(
    'typed',
    { description: 'structured', outputSchema: z.object({ items: z.array(z.unknown()) }) },
    () => ({ content: [], structuredContent: { items: records(2000) } }),
  );
  // What code mode does: calls through the catalog as the caller, from code.
  server.registerTool('sum_from_code', { description: 'sums prices' }, async (ctx: ToolContext) => {
    const whole = await server.callTool('big_json', {}, ctx, { via: 'code' });
    const rows = JSON.parse(firstText(whole)) as { price: number }[];
    return `${rows.length} rows, sum ${rows.reduce((n, r) => n + r.price, 0)}`;
  });
  // What ipybox's tool server does for mcptools.results.load: opens a result as the caller.
  server.registerTool(
    'load_in_code',
    { description: 'loads a stored result', inputSchema: { handle: z.string() } },
    async ({ handle }: { handle: string }, ctx: ToolContext) => {
      const other = { ...ctx, connectionId: 'another-connection', sessionId: undefined };
      const refusal = (e: Error) => `refused: ${e.message.replace(/"[\w-]{22}"/, '"<id>"')}`;
      const own = await server.catalogView
        .openResult(handle, ctx)
        .then(
          ({ meta, text }) => `${meta.kind}, ${(JSON.parse(text) as unknown[]).length} items`,
          refusal,
        );
      const theirs = await server.catalogView.openResult(handle, other).then(() => 'read', refusal);
      return `${own}\n${theirs}`;
    },
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'results-test', version: '1.0.0' });
  await client.connect(clientSide);
  t.after(async () => {
    await client.close();
    await server.close();
  });
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  return { client, call };
}

const handleOf = (result: CallToolResult) =>
  (result._meta?.['io.mcpbox/result'] as { handle?: string } | undefined)?.handle;

test('over the limit: a preview and a link; within it, or switched off, the result whole', async (t) => {
  const { call, client } = await setUp(t);
  const big = await call('big_json');
  assert.match(
    firstText(big),
    /JSON array of 2000 items; the first \d+:\n {2}\{"id":0,"price":0\}/,
  );
  const handle = handleOf(big);
  assert.ok(handle);
  const page = await client.readResource({ uri: `results://${handle}?offset=1990&limit=5` });
  const slice = JSON.parse((page.contents[0] as { text: string }).text);
  assert.deepEqual(slice.items, records(1995).slice(1990));
  assert.equal(slice.next_offset, 1995);

  assert.deepEqual(JSON.parse(firstText(await call('small'))), records(3));
  assert.equal(JSON.parse(firstText(await call('never_previewed'))).length, 2000);
  const picture = await call('picture');
  assert.equal(picture.content[0]?.type, 'image', 'binary content stays as it was');
  assert.equal(handleOf(picture), undefined);
  const typed = await call('typed');
  assert.equal((typed.structuredContent as { items: unknown[] }).items.length, 2000);
});

test('an object: its top-level keys with their sizes; pages of the value at a pointer', async (t) => {
  const { call, client } = await setUp(t);
  const search = await call('search');
  assert.match(
    firstText(search),
    /JSON object with 3 keys \(value sizes in JSON\):\n {2}"query": "price < 10"\n {2}"total": 2000\n {2}"items": array of 2000 items \(\d+\.\d KB\)/,
  );
  const uri = `results://${handleOf(search)}?pointer=/items&offset=10&limit=2`;
  const page = await client.readResource({ uri });
  assert.deepEqual(
    JSON.parse((page.contents[0] as { text: string }).text).items,
    records(12).slice(10),
  );
});

test('a call from code gets the whole result, whatever the limit', async (t) => {
  const { call } = await setUp(t);
  // 2000 rows, prices 0..9 repeated: 200 × 45.
  assert.equal(firstText(await call('sum_from_code')), '2000 rows, sum 9000');
});

test('text: a preview of the first lines, pages of lines, grep', async (t) => {
  const { call, client } = await setUp(t);
  const log = await call('log');
  assert.match(firstText(log), /Text of 3000 lines; the first \d+:\nline 0\nline 1\n/);
  const handle = handleOf(log)!;
  const page = await client.readResource({ uri: `results://${handle}?offset=2998` });
  assert.deepEqual(JSON.parse((page.contents[0] as { text: string }).text).items, [
    'line 2998',
    'line 2999',
  ]);
  const grep = await call('results_query', { handle, grep: 'ERROR' });
  assert.deepEqual(JSON.parse(firstText(grep)).items, [
    'line 7 ERROR',
    'line 1007 ERROR',
    'line 2007 ERROR',
  ]);
  const wrong = await call('results_query', { handle, jsonpath: '$[0]' });
  assert.match(firstText(wrong), /this result is text: use grep or offset\/limit/);
});

test('over the store’s cap: kept truncated, and the preview and pages say why', async (t) => {
  const { call, client } = await setUp(t);
  const huge = await call('huge');
  assert.match(
    firstText(huge),
    /TRUNCATED: the result is \d+\.\d KB, over the store's cap of 97\.7 KB \(result_preview\.max_result_bytes\); kept the first \d+ of 10000 items/,
  );
  const page = await client.readResource({ uri: `results://${handleOf(huge)}?offset=0&limit=1` });
  const slice = JSON.parse((page.contents[0] as { text: string }).text);
  assert.ok(slice.total < 10_000 && slice.total > 1000, `kept ${slice.total}`);
  assert.match(slice.truncated, /^TRUNCATED/);
});

test('bad reads: a pointer that names nothing, a bad page, a JSONPath that does not parse', async (t) => {
  const { call, client } = await setUp(t);
  const handle = handleOf(await call('big_json'))!;
  const uri = `results://${handle}`;
  const at = await client.readResource({ uri: `${uri}?pointer=/5` });
  assert.deepEqual(JSON.parse((at.contents[0] as { text: string }).text).items, [
    { id: 5, price: 5 },
  ]);
  await assert.rejects(
    client.readResource({ uri: `${uri}?pointer=/nope` }),
    /names nothing in this result \(no "nope"\)/,
  );
  await assert.rejects(
    client.readResource({ uri: `${uri}?limit=0` }),
    /limit must be a whole number from 1 to 1000, got 0/,
  );
  await assert.rejects(
    client.readResource({ uri: `${uri}?offset=x` }),
    /offset must be a whole number, got "x"/,
  );
  const bad = await call('results_query', { handle, jsonpath: 'items[0]' });
  assert.equal(bad.isError, true);
  assert.match(firstText(bad), /must start with "\$"/);
  const fine = await call('results_query', { handle, jsonpath: '$[?(@.id < 3)].id' });
  assert.deepEqual(JSON.parse(firstText(fine)).items, [0, 1, 2]);
});

test('code opens a stored result as its caller (the catalog’s openResult), by handle or link', async (t) => {
  const { call } = await setUp(t);
  const handle = handleOf(await call('big_json'));
  assert.ok(handle);
  const refused =
    'refused: No stored result "<id>" for this caller: the handle is unknown, or belongs to another caller';
  for (const named of [handle, `results://${handle}?offset=0&limit=10`]) {
    const [own, theirs] = firstText(await call('load_in_code', { handle: named })).split('\n');
    assert.equal(own, 'json, 2000 items');
    assert.ok(theirs?.startsWith(refused), theirs);
  }
  const [forged] = firstText(await call('load_in_code', { handle: 'A'.repeat(22) })).split('\n');
  assert.ok(forged?.startsWith(refused), forged);
});
