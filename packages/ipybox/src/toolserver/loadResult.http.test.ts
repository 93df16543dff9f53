/**
 * `mcptools.results.load` end to end: a real mcp-proxy over HTTP with `result_preview`, OAuth
 * against a real (local) introspection server naming two principals, a real upstream SDK v2
 * server returning ~5 MB of tabular JSON, and ipybox and code mode with real kernels. The model
 * gets a preview and a handle; the same principal's kernel code (another era, another session)
 * loads the whole as a DataFrame; the other principal's kernel, and a forged handle, are refused
 * without a byte of it.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { versionOfEra } from '@mcpbox/framework';
import {
  connectHttp,
  firstText,
  REPO_ROOT,
  startHttpProxy,
  startIntrospectionServer,
} from '@mcpbox/test-utils';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { executeCode } from '../codemode/testing.ts';
import { runCell, tempWorkspace, textOf } from '../server/testing.ts';

const RECORDS = join(REPO_ROOT, 'packages/framework/src/__fixtures__/upstream-records.ts');
const COUNT = 50_000;
/** Record i's price is i % 100: 500 rounds of 0 + 1 + … + 99. */
const PRICE_SUM = 500 * 4950;

/** The handle a preview carries in `_meta` (what the model would pass to kernel code). */
function handleOf(result: CallToolResult): string {
  const handle = (result._meta?.['io.mcpbox/result'] as { handle?: string } | undefined)?.handle;
  assert.ok(handle, `a preview with a handle in _meta: ${firstText(result)}`);
  return handle;
}

test('kernel code loads a result the model saw as a preview, for its own caller alone', async (t) => {
  const as = await startIntrospectionServer();
  t.after(() => as.close());
  const exp = Math.floor(Date.now() / 1000) + 3600;
  as.tokens.set('alice-token', { active: true, sub: 'alice', client_id: 'load', exp });
  as.tokens.set('bob-token', { active: true, sub: 'bob', client_id: 'load', exp });
  const { dir, remove } = await tempWorkspace('load-result-');
  t.after(remove);
  const config = [
    `oauth_server_url: ${as.url}`,
    'oauth_public_url: http://127.0.0.1/mcp',
    'result_preview: { max_chars: 20000 }',
    'plugins:',
    '  records:',
    `    command: ${JSON.stringify(process.execPath)}`,
    `    args: [--import, tsx, ${JSON.stringify(RECORDS)}]`,
    `    cwd: ${JSON.stringify(REPO_ROOT)}`,
    '  ipybox:',
    `    workspace: ${JSON.stringify(join(dir, 'ipybox'))}`,
    '  code_mode:',
    `    workspace: ${JSON.stringify(join(dir, 'code_mode'))}`,
    '',
  ];
  await writeFile(join(dir, 'proxy.yaml'), config.join('\n'));
  const proxy = await startHttpProxy(
    t,
    ['-c', join(dir, 'proxy.yaml'), '-a', 'records', 'ipybox', 'code_mode'],
    { env: { HOME: dir, TMPDIR: dir }, timeoutMs: 90_000 },
  );
  const modern = { versionNegotiation: { mode: { pin: versionOfEra('modern') } } } as const;
  const alice = await connectHttp(t, proxy.mcpUrl, { name: 'alice', token: 'alice-token' });
  const aliceModern = await connectHttp(t, proxy.mcpUrl, {
    name: 'alice-modern',
    token: 'alice-token',
    options: modern,
  });
  const bob = await connectHttp(t, proxy.mcpUrl, { name: 'bob', token: 'bob-token' });

  // What the model sees of 5 MB: a preview, the link and the handle.
  const tool = (await alice.listTools()).tools.find((x) => x.name.endsWith('export_records'));
  assert.ok(tool, 'the upstream tool is mirrored');
  const exported = (await alice.callTool({
    name: tool.name,
    arguments: { count: COUNT },
  })) as CallToolResult;
  assert.ok(Buffer.byteLength(firstText(exported)) <= 2048, firstText(exported));
  assert.match(firstText(exported), /is 5\.\d MB, too large to show whole/);
  const handle = handleOf(exported);

  // Alice's kernel (a 2026 request: no session, the same principal) loads the whole.
  const loaded = await runCell(
    aliceModern,
    [
      'import json',
      'from mcptools import results',
      `df = results.load("results://${handle}?offset=0&limit=100")`,
      `rows = results.load(${JSON.stringify(handle)}, as_frame=False)`,
      "print(json.dumps([type(df).__name__, len(df), int(df['price'].sum()), df['name'].iloc[-1], type(rows).__name__, len(rows)]))",
    ].join('\n'),
  );
  assert.equal(loaded.isError, undefined, textOf(loaded));
  assert.deepEqual(JSON.parse(textOf(loaded).trim()), [
    'DataFrame',
    COUNT,
    PRICE_SUM,
    `item-${COUNT - 1}`,
    'list',
    COUNT,
  ]);

  // A forged handle in Alice's kernel, and Alice's handle in Bob's (code mode's): one refusal.
  const refusal = (id: string) =>
    [
      'from mcptools import results',
      'try:',
      `    results.load(${JSON.stringify(id)})`,
      'except results.ResultUnavailable as error:',
      "    print('refused:', error)",
    ].join('\n');
  const forged = textOf(await runCell(alice, refusal('A'.repeat(22))));
  const stolen = (await executeCode(bob, refusal(handle))).text;
  assert.match(forged, /^refused: No stored result "A{22}" for this caller/);
  assert.equal(stolen.replace(handle, '<id>'), forged.replace('A'.repeat(22), '<id>'));
  assert.doesNotMatch(stolen, /item-/);

  // Code mode's kernel loads its own caller's results the same way.
  const bobs = (await bob.callTool({
    name: tool.name,
    arguments: { count: COUNT },
  })) as CallToolResult;
  const bobsHandle = handleOf(bobs);
  const own = await executeCode(
    bob,
    `from mcptools import results\nprint(len(results.load(${JSON.stringify(bobsHandle)})))`,
  );
  assert.equal(own.text.trim(), String(COUNT), own.text);

  // And code mode's JavaScript: the parsed JSON; another caller's handle rejects alike.
  const js = await executeCode(
    bob,
    `const rows = await results.load(${JSON.stringify(`results://${bobsHandle}`)});\n` +
      '[rows.length, rows.reduce((n, r) => n + r.price, 0)]',
    { language: 'javascript' },
  );
  assert.deepEqual(JSON.parse(js.text.trim()), [COUNT, PRICE_SUM], js.text);
  const jsStolen = await executeCode(
    bob,
    `await results.load(${JSON.stringify(handle)}).then(() => 'loaded', (e) => \`\${e.name}: \${e.message}\`)`,
    { language: 'javascript' },
  );
  assert.match(jsStolen.text, /^ResultUnavailable: No stored result ".{22}" for this caller/);
});
