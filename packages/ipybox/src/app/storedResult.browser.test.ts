/**
 * A result kept by reference, in the viewer: a real `mcp-proxy` with `result_preview` and the
 * ipybox plugin; a cell prints 2,000 JSON records, so the model gets a preview and the handle;
 * the viewer (headless Chromium, the test AppBridge host) pages through the stored whole with
 * `resources/read` of `results://<id>?offset=&limit=` through the host to the real server.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startProxy } from '@mcpbox/test-utils';
import { launchTestBrowser } from '@mcpbox/test-utils/browser';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Frame } from 'puppeteer-core';
import { runCell, textOf } from '../server/testing.ts';
import { hostPage, waitForStatus } from './__fixtures__/hostPage.ts';
import { UI_CAPABILITIES } from './__fixtures__/viewerCells.ts';

// About 130,000 characters: under max_output_chars (200,000, else ipybox cuts it), over result_preview.
const COUNT = 2000;
const CELL = `print(json.dumps([{'id': i, 'name': f'item-{i}', 'price': i % 100, 'tags': ['a', 'b']} for i in range(${COUNT})]))`;

function cellsOf(frame: Frame, column: number): Promise<string[]> {
  return frame.$$eval(
    'section.stored tbody tr',
    (rows, c) => rows.map((row) => row.children[c]?.textContent ?? ''),
    column,
  );
}

test('the viewer pages a cell result kept by reference: a table of its records, page by page', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'ipybox-stored-'));
  t.after(() => rm(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 }));
  await writeFile(
    join(dir, 'proxy.yaml'),
    [
      'result_preview: { max_chars: 20000 }',
      'autoload: [ipybox]',
      'plugins:',
      '  ipybox:',
      `    workspace: ${JSON.stringify(join(dir, 'workspace'))}`,
      '',
    ].join('\n'),
  );
  const proxy = await startProxy(['--http', '0', '-c', join(dir, 'proxy.yaml')], {
    env: { HOME: dir, TMPDIR: dir },
  });
  t.after(() => proxy.stop());
  const client = new Client(
    { name: 'stored-viewer-test', version: '1.0.0' },
    { capabilities: UI_CAPABILITIES, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(proxy.mcpUrl!)));
  t.after(() => client.close());

  // A kernel's first cell carries a note on how to keep it: the records' cell then prints JSON alone.
  const kernel = (await runCell(client, 'import json'))._meta?.['ipybox/kernel'];
  const result = (await client.callTool(
    { name: 'execute_ipython_cell', arguments: { code: CELL, kernel, max_output_chars: 200_000 } },
    { timeout: 300_000 },
  )) as CallToolResult;
  assert.notEqual(result.isError, true, textOf(result));
  // The model's side: a preview and the link, not 2,000 records.
  const ref = result._meta?.['io.mcpbox/result'] as { uri: string; kind: string } | undefined;
  assert.ok(ref, `not kept by reference: ${JSON.stringify(result).slice(0, 500)}`);
  assert.equal(ref.kind, 'json', textOf(result));
  assert.ok(textOf(result).length < 5000, `the model got ${textOf(result).length} characters`);
  const { contents } = await client.readResource({ uri: 'ui://ipybox/viewer' });
  const viewerHtml = (contents[0] as { text: string }).text;

  const chromium = await launchTestBrowser('ipybox');
  t.after(() => chromium.close());
  const page = await chromium.browser.newPage();
  const log: string[] = [];
  page.on('console', (message) => log.push(`${message.type()}: ${message.text()}`));
  page.on('pageerror', (error) => log.push(`pageerror: ${error}`));
  await page.setViewport({ width: 1000, height: 900 });
  const reads: string[] = [];
  await page.exposeFunction('hostCallTool', () => {
    throw new Error('the stored result view calls no tool');
  });
  await page.exposeFunction('hostReadResource', (params: { uri: string }) => {
    reads.push(params.uri);
    return client.readResource(params);
  });
  await page.setContent(
    await hostPage(
      'Called <code>execute_ipython_cell</code>: 2,000 records, kept by reference (the model saw a preview).',
    ),
    { waitUntil: 'load' },
  );
  await page.evaluate(
    `showApp(${JSON.stringify(viewerHtml)}, ${JSON.stringify({ code: CELL })}, ${JSON.stringify(result)})`,
  );
  const app = await (await page.waitForSelector('iframe#app'))?.contentFrame();
  assert.ok(app, 'the viewer frame');

  await waitForStatus(app, 'section.stored', 'items 1–50 of 2,000 · page 1 of 40', log);
  assert.deepEqual(
    await app.$$eval('section.stored thead th', (ths) => ths.map((th) => th.textContent)),
    ['id', 'name', 'price', 'tags'],
  );
  const ids = (from: number) => Array.from({ length: 50 }, (_, i) => String(from + i));
  assert.deepEqual(await cellsOf(app, 0), ids(0));
  assert.deepEqual((await cellsOf(app, 3)).slice(0, 1), ['["a","b"]']);
  await page.screenshot({ path: join(chromium.screenshots, 'viewer-stored-result.png') });

  await app.click('section.stored button[title="Next page"]');
  await waitForStatus(app, 'section.stored', 'items 51–100 of 2,000 · page 2 of 40', log);
  assert.deepEqual(await cellsOf(app, 0), ids(50));
  assert.deepEqual((await cellsOf(app, 1)).slice(0, 2), ['item-50', 'item-51']);
  assert.deepEqual(
    (await cellsOf(app, 2)).slice(-1),
    ['99'], // price of record 99: 99 % 100
  );
  await app.click('section.stored button[title="Previous page"]');
  await waitForStatus(app, 'section.stored', 'items 1–50 of 2,000 · page 1 of 40', log);

  // Every page was read through the host, from the stored result's own link.
  assert.deepEqual(reads, [
    `${ref.uri}?offset=0&limit=50`,
    `${ref.uri}?offset=50&limit=50`,
    `${ref.uri}?offset=0&limit=50`,
  ]);
});
