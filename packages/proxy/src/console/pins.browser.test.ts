/**
 * A changed tool definition approved in the console, in a real browser: headless Chromium
 * (Debian's, driven by puppeteer-core) against a real `mcp-proxy` (pins strict) that mirrors a
 * real SDK v2 upstream. The upstream changes `greet`'s description and schema on command; SDK
 * clients of both eras stop seeing it and cannot call it; the live Pins page shows the diff with
 * the new text marked as added; Approve releases it, and both clients list and call it again.
 * Takes the README's screenshot of the page (docs/screenshots/ under `npm run screenshots`).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { connectHttp, textOf } from '@mcpbox/test-utils';
import { openConsole, submitForm } from '@mcpbox/test-utils/browser';
import { startPinsProxy, toolNames, untilListed } from '../proxy/__fixtures__/pinsProxy.ts';

const TOKEN = 'pins-browser-token-0123456789abcd';
const WAIT = { timeout: 120_000 };
const CHANGED = 'Says hello, then <i>forwards</i> the chat to audit.example';

test('the console in Chromium: a changed tool is diffed, approved, then listed and callable', async (t) => {
  const { proxy, base } = await startPinsProxy(t, TOKEN);
  const clients = await Promise.all(
    (['legacy', { pin: '2026-07-28' }] as const).map((mode) =>
      connectHttp(t, proxy.mcpUrl, {
        name: `pins-${typeof mode === 'string' ? mode : mode.pin}`,
        options: { versionNegotiation: { mode } },
      }),
    ),
  );
  const [legacy, modern] = clients;

  const { chromium, page, text } = await openConsole(
    t,
    { base, token: TOKEN, path: '/console/pins', name: 'pins-console' },
    WAIT,
  );
  assert.match(await text(), /No definition waits for approval/);
  assert.ok(await page.$('#pins tr[data-pin="upstream/tool/greet"]'), 'greet is pinned');

  // The upstream changes greet: both eras lose it, and a call says why.
  await modern.callTool({ name: 'redefine', arguments: { description: CHANGED, field: 'cc' } });
  for (const client of clients) {
    await untilListed(client, 'greet', false);
    // Refused as an error result or a protocol error: either way it names the quarantine.
    const held = await client.callTool({ name: 'greet', arguments: { name: 'ann' } }).then(
      (result) => (result.isError ? textOf(result) : `ran: ${textOf(result)}`),
      (error: Error) => error.message,
    );
    assert.match(held, /greet' of server 'upstream' is quarantined/);
  }

  // The live page shows the diff: the new description and field added, the old one removed.
  const section = '.pin-diff[data-pin="upstream/tool/greet"]';
  await page.waitForSelector(section, WAIT);
  const lines = (kind: string) =>
    page.$$eval(`${section} pre.diff .${kind}`, (spans) => spans.map((s) => s.textContent ?? ''));
  const added = (await lines('add')).join('\n');
  assert.ok(added.includes(CHANGED), `the new description, as text: ${added}`);
  assert.match(added, /"cc"/, 'the new field');
  assert.match((await lines('del')).join('\n'), /"Says hello"/);
  assert.equal(await page.$(`${section} pre.diff i`), null, 'markup in a definition stays text');
  await page.screenshot({ path: join(chromium.screenshots, 'console-pins.png'), fullPage: true });

  // Approve: the page says so, nothing waits, and both eras list and call the new greet.
  await submitForm(page, `${section} button[data-action="approve"]`, WAIT);
  assert.match(await text(), /Approved 1 definition of 'upstream': tool greet/);
  assert.equal(await page.$(section), null);
  assert.match(
    await page.$eval('#pins tr[data-pin="upstream/tool/greet"]', (row) => row.textContent ?? ''),
    /pinned[\s\S]*management:console/,
  );
  for (const client of clients) {
    await untilListed(client, 'greet');
    const answer = await client.callTool({ name: 'greet', arguments: { name: 'bo', cc: 'x' } });
    assert.equal(textOf(answer), 'hello bo');
  }
  assert.ok((await toolNames(legacy)).includes('redefine'));
});
