/**
 * Results by reference end to end: a real upstream SDK v2 server returning ~5 MB of JSON, mirrored
 * by two real `mcp-proxy` replicas on one real `redis-server`, OAuth against a real (local)
 * introspection server, read by SDK v2 clients of both eras. The model-facing result is a preview
 * with a working link; paging and JSONPath return the right slices on the other replica; another
 * principal, or a forged handle, gets the same refusal.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  firstText,
  type ProxyProcess,
  REPO_ROOT,
  startIntrospectionServer,
  startProxy,
  startRedisServer,
  TEST_CLUSTER_SECRET,
} from '@mcpbox/test-utils';
import {
  type CallToolResult,
  Client,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { testdir } from '../proxy/__fixtures__/testdir.ts';

type After = { after(fn: () => unknown): void };
type Era = 'legacy' | 'modern';

const RECORDS = join(REPO_ROOT, 'packages/framework/src/__fixtures__/upstream-records.ts');
const COUNT = 50_000;

async function connect(t: After, url: string, token: string, era: Era): Promise<Client> {
  const client = new Client(
    { name: `results-${era}`, version: '1.0.0' },
    { versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: '2026-07-28' } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  t.after(() => client.close());
  return client;
}

/** The JSON a page of `uri` holds. */
async function readPage(client: Client, uri: string) {
  const read = await client.readResource({ uri });
  const first = read.contents[0] as { text: string };
  return JSON.parse(first.text) as {
    total: number;
    offset: number;
    next_offset?: number;
    items: { id: number; name: string }[];
  };
}

test('a 5 MB upstream result reaches both eras as a preview; either replica pages it for its owner alone', async (t) => {
  const redis = await startRedisServer(t);
  const as = await startIntrospectionServer();
  t.after(() => as.close());
  const exp = Math.floor(Date.now() / 1000) + 3600;
  as.tokens.set('alice-token', { active: true, sub: 'alice', client_id: 'results', exp });
  as.tokens.set('bob-token', { active: true, sub: 'bob', client_id: 'results', exp });
  const home = testdir(
    {
      'proxy.yaml': [
        `oauth_server_url: ${as.url}`,
        'oauth_public_url: http://127.0.0.1/mcp',
        'result_preview: { max_chars: 20000 }',
        'autoload: [records]',
        'plugins:',
        '  records:',
        `    command: ${JSON.stringify(process.execPath)}`,
        `    args: [--import, tsx, ${JSON.stringify(RECORDS)}]`,
        `    cwd: ${JSON.stringify(REPO_ROOT)}`,
        '',
      ].join('\n'),
    },
    t,
  );
  const replica = async (): Promise<ProxyProcess & { mcpUrl: string }> => {
    const proxy = await startProxy(
      ['--http', '0', '--mgmt-port', '0', '-c', join(home, 'proxy.yaml')],
      {
        env: { HOME: home, MCP_REDIS_URL: redis.url, MCP_CLUSTER_SECRET: TEST_CLUSTER_SECRET },
        timeoutMs: 60_000,
      },
    );
    t.after(() => proxy.stop());
    return proxy as ProxyProcess & { mcpUrl: string };
  };
  const [a, b] = [await replica(), await replica()];

  for (const era of ['legacy', 'modern'] as const) {
    const alice = await connect(t, a.mcpUrl, 'alice-token', era);
    const tool = (await alice.listTools()).tools.find((x) => x.name.endsWith('export_records'));
    assert.ok(tool, 'the upstream tool is mirrored');
    const result = (await alice.callTool({
      name: tool.name,
      arguments: { count: COUNT },
    })) as CallToolResult;

    // What the model receives: the preview, the link, the handle — not 5 MB.
    const preview = firstText(result);
    assert.ok(Buffer.byteLength(preview) <= 2048, `${era}: the preview is ${preview.length} chars`);
    assert.match(preview, /is 5\.\d MB, too large to show whole/);
    assert.match(
      preview,
      /JSON array of 50000 items; the first \d+:\n {2}\{"id":0,"name":"item-0"/,
    );
    const link = result.content[1] as { type: string; uri: string; mimeType: string };
    assert.equal(link.type, 'resource_link');
    assert.match(link.uri, /^results:\/\/[A-Za-z0-9_-]{22}$/);
    const handle = (result._meta?.['io.mcpbox/result'] as { handle?: string } | undefined)?.handle;
    assert.ok(handle, 'the handle is in _meta');
    assert.equal(link.uri, `results://${handle}`);

    // The rest, from the other replica: a page, the last page, a JSONPath.
    const bobAtB = await connect(t, b.mcpUrl, 'bob-token', era);
    const aliceAtB = await connect(t, b.mcpUrl, 'alice-token', era);
    const first = await readPage(aliceAtB, `${link.uri}?offset=100&limit=100`);
    assert.deepEqual(
      [first.total, first.offset, first.items.length, first.items[0]?.name, first.next_offset],
      [COUNT, 100, 100, 'item-100', 200],
    );
    const last = await readPage(aliceAtB, `${link.uri}?offset=${COUNT - 30}`);
    assert.deepEqual(
      [last.items.length, last.items.at(-1)?.id, last.next_offset],
      [30, COUNT - 1, undefined],
    );
    const query = await aliceAtB.callTool({
      name: 'results_query',
      arguments: { handle, jsonpath: '$[?(@.price == 42 && @.id < 1000)].name' },
    });
    assert.deepEqual(JSON.parse(firstText(query)).items, [
      'item-42',
      'item-142',
      'item-242',
      'item-342',
      'item-442',
      'item-542',
      'item-642',
      'item-742',
      'item-842',
      'item-942',
    ]);
    const broken = await aliceAtB.callTool({
      name: 'results_query',
      arguments: { handle, jsonpath: '$[?(@.price ==' },
    });
    assert.equal(broken.isError, true);
    assert.match(firstText(broken), /the JSONPath "\$\[\?\(@\.price ==" does not parse/);

    // Bob cannot read Alice's result: told exactly what a forged handle is told.
    const forged = 'A'.repeat(22);
    const refusal = async (client: Client, id: string) => {
      const error = await client.readResource({ uri: `results://${id}` }).then(
        () => assert.fail('read'),
        (e: Error) => e.message.replaceAll(id, '<id>'),
      );
      const queried = await client.callTool({ name: 'results_query', arguments: { handle: id } });
      assert.equal(queried.isError, true);
      return [error, firstText(queried).replaceAll(id, '<id>')];
    };
    const bobs = await refusal(bobAtB, handle);
    assert.match(bobs[0]!, /No stored result "<id>" for this caller/);
    assert.deepEqual(bobs, await refusal(aliceAtB, forged));
    assert.doesNotMatch(bobs.join(' '), /item-/);
  }
});
