/**
 * The web console in a real browser: headless Chromium (Debian's, driven by puppeteer-core)
 * against a real `mcp-proxy` with echo and ipybox (`approval: channel`), a server-level gate and
 * SDK v2 clients of both eras. Logs in (a wrong token first), loads and unloads a plugin (and a
 * broken one) while an SDK client watches its tool list, sees calls arrive in the live feed,
 * approves and denies a kernel's tool call while a real cell waits on it, closes that kernel,
 * and pulls the gate's kill switch. Takes the README's screenshots (written to docs/screenshots/
 * under `npm run screenshots`).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { registerEverything } from '@mcpbox/ipybox/testing';
import { codeAt, connectHttp, newSecret, startHttpProxy, textOf } from '@mcpbox/test-utils';
import { launchTestBrowser, submitForm } from '@mcpbox/test-utils/browser';
import type { Client } from '@modelcontextprotocol/client';
import type { Page } from 'puppeteer-core';
import { testdir, versionPlugin } from '../proxy/__fixtures__/testdir.ts';

const TOKEN = 'browser-console-token-0123456789';
const WAIT = { timeout: 120_000 };

type After = { after(fn: () => unknown): void };

const connect = (t: After, url: string, era: 'legacy' | '2026-07-28') =>
  connectHttp(t, url, {
    name: `console-${era}`,
    options: { versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: era } } },
  });

/** Polls until `check` holds (the machine may be loaded: no fixed sleeps). */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Clicks a form's button and waits for the page it leads to (even on a live page). */
const submit = (page: Page, selector: string) => submitForm(page, selector, WAIT);

/** A cell that calls the everything server's echo from kernel code and prints the outcome. */
const approvalCell = (label: string) =>
  [
    'from mcptools._runtime import ApprovalError',
    'from mcptools.everything import echo',
    'try:',
    `    print(echo.run({'message': '${label}'}))`,
    'except ApprovalError as e:',
    "    print(f'{type(e).__name__} | {e}')",
  ].join('\n');

test('the console in Chromium: log-in, plugins, live calls, approvals, kernels, gate', async (t) => {
  const secret = newSecret();
  const dir = testdir(
    {
      'plugins/counter.ts': versionPlugin('v1'),
      'plugins/broken.ts':
        "export const description = 'fails on purpose';\nexport function register() { throw new Error('broken on purpose'); }\n",
    },
    t,
  );
  const workspace = join(dir, 'workspace');
  const config = join(dir, 'proxy.yaml');
  const { writeFile } = await import('node:fs/promises');
  await writeFile(
    config,
    [
      'plugins:',
      '  ipybox:',
      `    workspace: ${JSON.stringify(workspace)}`,
      '    approval: channel',
      'gate:',
      '  groups:',
      '    secrets:',
      '      secret_ref: CONSOLE_TEST_GATE_SECRET',
      '      tools: [echo_upper]',
      '',
    ].join('\n'),
  );
  const proxy = await startHttpProxy(
    t,
    ['--mgmt-token', TOKEN, '-c', config, '-d', join(dir, 'plugins'), '-a', 'echo', 'ipybox'],
    { env: { HOME: dir, CONSOLE_TEST_GATE_SECRET: secret }, timeoutMs: 120_000 },
  );
  const base = `http://127.0.0.1:${proxy.mgmtPort}`;
  const legacy = await connect(t, proxy.mcpUrl, 'legacy');
  const modern = await connect(t, proxy.mcpUrl, '2026-07-28');

  const chromium = await launchTestBrowser('console');
  t.after(() => chromium.close());
  const page = await chromium.browser.newPage();
  const shot = (name: string) =>
    page.screenshot({ path: join(chromium.screenshots, `console-${name}.png`), fullPage: true });
  await page.setViewport({ width: 1280, height: 860 });
  const text = () => page.$eval('body', (b) => b.textContent ?? '');

  // Log in: a wrong token is refused and shows nothing; the right one opens the plugins page.
  await page.goto(`${base}/`, WAIT);
  assert.equal(new URL(page.url()).pathname, '/console/login');
  await page.type('#token', 'not-the-token');
  await submit(page, 'button[type=submit]');
  assert.match(await text(), /Wrong token/);
  assert.doesNotMatch(await text(), /echo_upper/);
  await page.type('#token', TOKEN);
  await submit(page, 'button[type=submit]');
  assert.equal(new URL(page.url()).pathname, '/console/plugins');
  assert.match(await text(), /echo_upper/);
  const cookies = await chromium.browser.cookies();
  const session = cookies.find((c) => c.name === 'mcp_console');
  assert.ok(session?.httpOnly && session.sameSite === 'Strict');
  assert.ok(!JSON.stringify(cookies).includes(TOKEN), 'the token is in no cookie');
  // Strings: this code runs in the page, where the DOM is (tsc here knows no DOM).
  const storage = String(
    await page.evaluate('JSON.stringify({ ...localStorage, ...sessionStorage })'),
  );
  assert.ok(!storage.includes(TOKEN), 'the token is in no browser storage');
  assert.ok(!(await page.content()).includes(TOKEN), 'the token is in no page');

  // Load a plugin: the page and an SDK client both see its tool.
  const toolsOf = async (client: Client) => (await client.listTools()).tools.map((x) => x.name);
  assert.ok(!(await toolsOf(legacy)).includes('version'));
  await submit(page, 'tr[data-plugin="counter"] button[data-action="load"]');
  assert.match(await text(), /loaded counter: version/);
  assert.ok(await page.$('#loaded tr[data-plugin="counter"]'));
  await until(async () => (await toolsOf(legacy)).includes('version'), 'counter to be listed');
  assert.ok((await toolsOf(modern)).includes('version'));

  // A load that fails: its error shows, nothing else changes.
  const before = (await toolsOf(legacy)).sort();
  await submit(page, 'tr[data-plugin="broken"] button[data-action="load"]');
  assert.match(await text(), /broken on purpose/);
  assert.match(
    await page.$eval('#available tr[data-plugin="broken"]', (r) => r.textContent ?? ''),
    /broken on purpose/,
  );
  assert.deepEqual((await toolsOf(legacy)).sort(), before);
  await shot('plugins');

  // Unload: gone from the page and from the client's list.
  await submit(page, 'tr[data-plugin="counter"] button[data-action="unload"]');
  assert.match(await text(), /unloaded counter/);
  assert.equal(await page.$('#loaded tr[data-plugin="counter"]'), null);
  await until(async () => !(await toolsOf(legacy)).includes('version'), 'counter to go');

  // The live feed: calls appear as they happen, arguments redacted, and the filter applies.
  await page.goto(`${base}/console/calls`, WAIT);
  await legacy.callTool({
    name: 'echo',
    arguments: { message: 'hello-feed', api_key: 'hush-key-1' },
  });
  await modern.callTool({ name: 'echo_upper', arguments: { message: 'locked-call' } });
  const feedShows = (what: string) =>
    page.waitForFunction(
      `document.querySelector('#feed tbody')?.textContent?.includes(${JSON.stringify(what)})`,
      WAIT,
    );
  await feedShows('hello-feed');
  await feedShows('echo_upper');
  const feed = await page.$eval('#feed tbody', (b) => b.textContent ?? '');
  assert.ok(!feed.includes('hush-key-1'), 'the secret argument is redacted');
  assert.match(feed, /rejected/, 'the gated call shows as rejected');
  await shot('calls');
  await page.type('#filter', 'hello-feed');
  const visible = await page.$$eval('#feed tbody tr', (rows) =>
    rows.filter((r) => !r.hasAttribute('hidden')).map((r) => r.textContent ?? ''),
  );
  assert.ok(visible.length >= 1 && visible.every((row) => row.includes('hello-feed')));

  // Approvals: a real cell waits on its tool call until the console answers.
  await registerEverything(legacy);
  const nav = await page.$$eval('header nav a', (links) =>
    links.map((a) => [a.textContent, a.getAttribute('href')]),
  );
  const approvalsHref = nav.find(([label]) => label === 'ipybox: Approvals')?.[1];
  const kernelsHref = nav.find(([label]) => label === 'ipybox: Kernels')?.[1];
  assert.ok(approvalsHref && kernelsHref, JSON.stringify(nav));
  for (const [decision, expected] of [
    ['approve', /^Echo: yes-please/],
    ['deny', /^ToolRejected \| .*rejected by the approver/],
  ] as const) {
    const label = decision === 'approve' ? 'yes-please' : 'no-thanks';
    const cell = legacy.callTool(
      { name: 'execute_ipython_cell', arguments: { code: approvalCell(label) } },
      { timeout: 300_000 },
    );
    await page.goto(`${base}${approvalsHref}`, WAIT);
    const row = '#admin-approvals tbody tr';
    await page.waitForSelector(row, WAIT);
    const shown = await page.$eval(row, (r) => r.textContent ?? '');
    assert.match(shown, /everything/);
    assert.match(shown, new RegExp(label));
    if (decision === 'approve') await shot('approvals');
    await submit(page, `${row} button[data-action="${decision}"]`);
    assert.match(await text(), decision === 'approve' ? /approved everything\.echo/ : /denied/);
    assert.match(textOf(await cell), expected);
  }

  // Kernels: the cell's kernel is listed with its owner; Interrupt stops a running cell,
  // Restart loses the variables, Close ends the kernel.
  const kernelRow = '#admin-kernels tbody tr';
  const runCell = (code: string) =>
    legacy.callTool({ name: 'execute_ipython_cell', arguments: { code } }, { timeout: 300_000 });
  const sleeping = runCell(
    "kept = 42\nprint('sleeping', flush=True)\nimport time\ntime.sleep(600)",
  );
  await page.goto(`${base}${kernelsHref}`, WAIT);
  await page.waitForFunction(
    `document.querySelector(${JSON.stringify(kernelRow)})?.textContent?.includes('busy')`,
    WAIT,
  );
  assert.match(await page.$eval(kernelRow, (r) => r.textContent ?? ''), /session:/);
  await shot('kernels');
  await submit(page, `${kernelRow} button[data-action="interrupt"]`);
  assert.match(await text(), /interrupted kernel/);
  assert.match(textOf(await sleeping), /execution was cancelled/);
  assert.match(textOf(await runCell('print(kept)')), /^42/, 'an interrupt keeps the variables');
  await submit(page, `${kernelRow} button[data-action="restart"]`);
  assert.match(await text(), /restarted kernel/);
  assert.match(textOf(await runCell('print(kept)')), /NameError/);
  await submit(page, '#admin-kernels tbody tr button[data-action="close"]');
  assert.match(await text(), /closed kernel/);
  await page.waitForSelector('#empty', WAIT);

  // The gate: a session unlocks, the page shows it, the kill switch locks everything.
  const unlocked = await legacy.callTool({
    name: 'gate_unlock',
    arguments: { group: 'secrets', code: codeAt(secret, Date.now()) },
  });
  assert.equal(unlocked.isError, undefined, textOf(unlocked));
  assert.equal(
    (await legacy.callTool({ name: 'echo_upper', arguments: { message: 'ok' } })).isError,
    undefined,
  );
  await page.goto(`${base}/console/gate`, WAIT);
  assert.match(await text(), /unlocked for 1/);
  await shot('gate');
  await submit(page, 'button[data-action="lock everything (kill switch)"]');
  assert.match(await text(), /All groups locked/);
  assert.match(await page.$eval('tr[data-group="secrets"]', (r) => r.textContent ?? ''), /locked/);
  const after = await legacy.callTool({ name: 'echo_upper', arguments: { message: 'no' } });
  assert.equal(after.isError, true);

  // Health: uptime, sessions of each era, the charts.
  await page.goto(`${base}/console/health`, WAIT);
  assert.match(await page.$eval('#sessions-2025', (c) => c.textContent ?? ''), /[1-9]/);
  assert.equal((await page.$$('.chart svg')).length, 2);
  await shot('health');

  // Log out: the session ends.
  await submit(page, '.logout button');
  assert.equal(new URL(page.url()).pathname, '/console/login');
});

test('the Access page in Chromium: principals seen, rules, explain, reload policy', async (t) => {
  const dir = testdir({}, t);
  const { writeFile } = await import('node:fs/promises');
  const config = join(dir, 'proxy.yaml');
  const policy = (tools: string) =>
    writeFile(
      config,
      [
        'policy:',
        '  rules:',
        '    - name: loopback-echo',
        `      tools: ${tools}`,
        `      allow: 'principal.kind == "anonymous"'`,
        '      description: callers on this machine',
        'limits:',
        '  per_principal: { rate: 100/minute, daily: 1000 }',
        '',
      ].join('\n'),
    );
  await policy('[echo]');
  // No management token: the console is open to loopback visitors, as the REST API is.
  const proxy = await startHttpProxy(t, ['-c', config, '-a', 'echo'], { env: { HOME: dir } });
  const base = `http://127.0.0.1:${proxy.mgmtPort}`;
  const client = await connect(t, proxy.mcpUrl, 'legacy');
  const toolsOf = async () => (await client.listTools()).tools.map((x) => x.name).sort();
  assert.deepEqual(await toolsOf(), ['echo']);
  await client.callTool({ name: 'echo', arguments: { message: 'hi' } });
  const refused = await client.callTool({ name: 'echo_upper', arguments: { message: 'no' } });
  assert.equal(refused.isError, true);

  const chromium = await launchTestBrowser('console-access');
  t.after(() => chromium.close());
  const page = await chromium.browser.newPage();
  await page.setViewport({ width: 1280, height: 860 });
  const textAt = (selector: string) => page.$eval(selector, (e) => e.textContent ?? '');

  // The principal seen, with its calls and refusals; the rule in force.
  await page.goto(`${base}/console/access`, WAIT);
  const anonymous = await textAt('#principals tr[data-principal="anonymous"]');
  assert.match(anonymous, /anonymous\s*anonymous/);
  assert.match(anonymous, /\/mcp/);
  assert.deepEqual(
    await page.$$eval('#principals tr[data-principal="anonymous"] td', (cells) =>
      cells.slice(4, 6).map((c) => c.textContent),
    ),
    ['2', '1'],
  );
  // Where it stands against its limits: the refused call spent nothing.
  assert.equal(
    await textAt('#principals tr[data-principal="anonymous"] td:nth-child(7)'),
    'rate 1/100 per minute · daily 1/1000',
  );
  assert.match(
    await textAt('#rules tr[data-rule="loopback-echo"]'),
    /allow\s*echo\s*principal\.kind == "anonymous"/,
  );
  assert.equal(await textAt('#policy-default'), 'deny');

  // Explain: why echo_upper is refused, then what the principal sees.
  await page.type('#explain-principal', 'anonymous');
  await page.type('#explain-tool', 'echo_upper');
  await submit(page, 'button[data-action="explain"]');
  assert.match(await textAt('#explanation'), /Outcome: +DENIED: no policy rule allows it/);
  assert.equal(
    await page.$eval('#explain-tool', (e) => (e as unknown as { value: string }).value),
    'echo_upper',
  );
  await page.goto(`${base}/console/access?principal=anonymous`, WAIT);
  assert.match(await textAt('#explanation'), /Sees 1 tool: echo$/m);
  await page.goto(`${base}/console/access?principal=anonymous&args=not-json&tool=echo`, WAIT);
  assert.match(await textAt('#explanation'), /Arguments must be a JSON object/);

  // Reload policy: the file now allows every echo tool; the client's list follows.
  await policy('["echo*"]');
  await submit(page, 'button[data-action="reload policy"]');
  assert.match(
    await textAt('.flash'),
    /Policy reloaded from .*proxy\.yaml: 0 views, 1 rule \(rules changed loopback-echo\)/,
  );
  assert.deepEqual(await toolsOf(), ['echo', 'echo_upper']);
  await page.screenshot({
    path: join(chromium.screenshots, 'console-access.png'),
    fullPage: true,
  });
  // A rule that does not compile: the error names it, the policy stays.
  await writeFile(config, "policy:\n  rules:\n    - name: broken\n      allow: '1 +'\n");
  await submit(page, 'button[data-action="reload policy"]');
  assert.match(await textAt('.flash'), /rule "broken".*nothing changed/s);
  assert.deepEqual(await toolsOf(), ['echo', 'echo_upper']);
});
