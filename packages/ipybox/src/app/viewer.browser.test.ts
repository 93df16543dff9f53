/**
 * The viewer in a real browser: headless Chromium (Debian's, driven by puppeteer-core) loads a
 * minimal MCP Apps host page (`__fixtures__/viewerHost.browser.mjs`: the ext-apps AppBridge, a
 * sandboxed iframe, a deny-by-default CSP) that renders `ui://ipybox/viewer` for a real cell of a
 * real ipybox (2026-07-28 client over stdio). Paging and sorting in the viewer call the app-only
 * tool through the host to the real server. Takes viewer-*.png (the README's screenshots, written
 * to docs/screenshots/ under `npm run screenshots`).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { launchTestBrowser, type TestBrowser } from '@mcpbox/test-utils/browser';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Frame, Page } from 'puppeteer-core';
import { runCell, stdioIpyboxPerSuite, textOf } from '../server/testing.ts';
import { hostPage, waitForStatus } from './__fixtures__/hostPage.ts';
import {
  FRAME_AND_IMAGE_CELL,
  UI_CAPABILITIES,
  viewerOutputs,
} from './__fixtures__/viewerCells.ts';

const HTML_CELL = [
  'from IPython.display import HTML, display',
  'display(HTML(\'<h3 id="summary">Summary</h3><p>100,000 rows of <b>a</b>, <b>b</b> and labels.</p><script>document.body.innerHTML = "<p id=ran>script ran</p>"</script>\'))',
  FRAME_AND_IMAGE_CELL,
].join('\n');

function columnOf(frame: Frame, column: number): Promise<string[]> {
  return frame.$$eval(
    'section.frame tbody tr',
    (rows, c) => rows.map((row) => row.children[c + 1]?.textContent ?? ''),
    column,
  );
}

describe('the viewer in headless Chromium, through an AppBridge host', () => {
  const box = stdioIpyboxPerSuite({
    clientOptions: {
      capabilities: UI_CAPABILITIES,
      versionNegotiation: { mode: { pin: '2026-07-28' } },
    },
  });
  let chromium: TestBrowser;
  let page: Page;
  const calls: { name: string; arguments?: Record<string, unknown> }[] = [];
  const consoleLines: string[] = [];

  before(async () => {
    chromium = await launchTestBrowser('ipybox');
    page = await chromium.browser.newPage();
    // What the page and the viewer say, for the assertion messages.
    page.on('console', (message) => consoleLines.push(`${message.type()}: ${message.text()}`));
    page.on('pageerror', (error) => consoleLines.push(`pageerror: ${error}`));
    await page.setViewport({ width: 1000, height: 900 });
    // The host's side of the bridge: the app's requests go to the real server.
    await page.exposeFunction(
      'hostCallTool',
      async (params: { name: string; arguments?: Record<string, unknown> }) => {
        calls.push(params);
        return box.client.callTool(params, { timeout: 300_000 });
      },
    );
    await page.exposeFunction('hostReadResource', (params: { uri: string }) =>
      box.client.readResource(params),
    );
  });
  after(async () => {
    await chromium?.close();
  });

  test('renders the image, the HTML sandboxed and the 100k-row DataFrame; paging and sorting go through the app-only tool', async () => {
    const result: CallToolResult = await runCell(box.client, HTML_CELL);
    assert.equal(result.isError, undefined, textOf(result));
    const outputs = viewerOutputs(result);
    assert.deepEqual(
      outputs.map((output) => output.kind),
      ['html', 'frame'],
    );
    const { contents } = await box.client.readResource({ uri: 'ui://ipybox/viewer' });
    const viewerHtml = (contents[0] as { text: string }).text;

    await page.setContent(
      await hostPage(
        'Called <code>execute_ipython_cell</code>: an HTML summary, a plot and a DataFrame of 100,000 rows.',
      ),
      { waitUntil: 'load' },
    );
    await page.evaluate(
      `showApp(${JSON.stringify(viewerHtml)}, ${JSON.stringify({ code: HTML_CELL })}, ${JSON.stringify(result)})`,
    );
    const app = await (await page.waitForSelector('iframe#app'))?.contentFrame();
    assert.ok(app, 'the viewer frame');

    // First page, in the frame's order, fetched by the viewer through the host.
    await waitForStatus(
      app,
      'section.frame',
      'rows 1–50 of 100,000 · page 1 of 2,000',
      consoleLines,
    );
    assert.deepEqual((await columnOf(app, 0)).slice(0, 3), ['0', '1', '2']);
    assert.equal(await app.evaluate("document.querySelector('img.image').naturalWidth > 0"), true);
    // The HTML output: in a frame that runs no script (sandbox without allow-scripts).
    const htmlFrame = await app.waitForSelector('iframe.html');
    assert.equal(await htmlFrame?.evaluate((f) => f.getAttribute('sandbox')), '');
    await app.waitForFunction("document.querySelector('iframe.html')?.srcdoc.includes('Summary')", {
      timeout: 60_000,
    });
    // Its script would have replaced the body: the heading is still there, its paragraph is not.
    const inner = await htmlFrame?.contentFrame();
    assert.ok(inner, 'the HTML output frame');
    await inner.waitForSelector('#summary', { timeout: 60_000 });
    assert.equal(await inner.evaluate("document.querySelector('#ran') === null"), true);
    await page.screenshot({
      path: join(chromium.screenshots, 'viewer-dataframe.png'),
      fullPage: true,
    });

    // Next page.
    await app.click('section.frame button[title="Next page"]');
    await waitForStatus(
      app,
      'section.frame',
      'rows 51–100 of 100,000 · page 2 of 2,000',
      consoleLines,
    );
    assert.deepEqual((await columnOf(app, 0)).slice(0, 2), ['50', '51']);

    // Sort by b: ascending, then descending; then page 3 of the descending order.
    await app.click('section.frame th:nth-child(3)');
    await waitForStatus(app, 'section.frame', 'rows 1–50 of 100,000', consoleLines);
    await app.waitForSelector('section.frame th[aria-sort="ascending"]');
    assert.deepEqual((await columnOf(app, 1)).slice(0, 3), ['0', '1', '2']);
    await app.click('section.frame th:nth-child(3)');
    await app.waitForSelector('section.frame th[aria-sort="descending"]', { timeout: 120_000 });
    await waitForStatus(app, 'section.frame', 'rows 1–50 of 100,000', consoleLines);
    await app.click('section.frame button[title="Next page"]');
    await waitForStatus(app, 'section.frame', 'rows 51–100 of 100,000', consoleLines);
    await app.click('section.frame button[title="Next page"]');
    await waitForStatus(
      app,
      'section.frame',
      'rows 101–150 of 100,000 · page 3 of 2,000',
      consoleLines,
    );
    const b = await columnOf(app, 1);
    assert.deepEqual(
      b,
      Array.from({ length: 50 }, (_, i) => String(99_899 - i)),
    );
    const a = await columnOf(app, 0);
    assert.ok(a.every((value, i) => (Number(value) * 7919) % 100_000 === Number(b[i])));
    await page.screenshot({
      path: join(chromium.screenshots, 'viewer-sorted.png'),
      fullPage: true,
    });

    // Every page came from the app-only tool, as the host forwarded it.
    assert.ok(calls.every((call) => call.name === 'view_frame_page'));
    const frameId = outputs[1]?.kind === 'frame' ? outputs[1].id : '';
    assert.deepEqual(calls.at(-1)?.arguments, {
      frame: frameId,
      offset: 100,
      limit: 50,
      descending: true,
      sort_column: 1,
    });
  });
});
