/**
 * The web console of a real `mcp-proxy` over plain HTTP: log-in (no token, wrong token, right
 * token), the session cookie's flags, a forged cookie, cross-site and CSRF-less changes refused,
 * the token in no page, a failed REST load in the plugins page, `--no-console`, and a console
 * without a management token.
 */
import assert from 'node:assert/strict';
import { get } from 'node:http';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '@mcpbox/framework';
import { connectHttp, startHttpProxy, startProxy } from '@mcpbox/test-utils';
import { testdir } from '../proxy/__fixtures__/testdir.ts';

const TOKEN = 'console-test-token-0123456789';

type After = { after(fn: () => unknown): void };

/** A plugin whose description is markup: the console must show it as text. */
const MARKUP_PLUGIN =
  'export const description = \'<img src=x onerror="alert(1)"><script>alert(2)</script>\';\n' +
  'export function register() {}\n';

async function proxyWith(
  t: { after(fn: () => unknown): void },
  extra: string[],
  files: Record<string, string> = {},
) {
  const home = testdir({ 'plugins/markup.ts': MARKUP_PLUGIN, ...files }, t);
  const args = ['--http', '0', '--mgmt-port', '0', '-d', `${home}/plugins`, '-a', 'echo'];
  const proxy = await startProxy([...args, ...extra], {
    env: { HOME: home, MCP_MGMT_TOKEN: '' },
  });
  t.after(() => proxy.stop());
  return `http://127.0.0.1:${proxy.mgmtPort}`;
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

async function login(base: string, token: string) {
  return fetch(`${base}/console/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form({ token }),
    redirect: 'manual',
  });
}

test('console log-in: the cookie, wrong and missing tokens, forged cookies, CSRF', async (t) => {
  const base = await proxyWith(t, ['--mgmt-token', TOKEN]);

  // Not logged in: pages send you to the log-in form, which holds no data.
  const anonymous = await fetch(`${base}/`, { redirect: 'manual' });
  assert.equal(anonymous.status, 303);
  assert.equal(anonymous.headers.get('location'), '/console/login');
  const anonymousPage = await fetch(`${base}/console/plugins`, { redirect: 'manual' });
  assert.equal(anonymousPage.status, 303);
  const loginForm = await (await fetch(`${base}/console/login`)).text();
  assert.match(loginForm, /type="password"/);
  assert.doesNotMatch(loginForm, /echo_upper/);

  // Wrong and missing tokens: refused, no cookie, no data.
  for (const token of ['wrong', '', `${TOKEN}x`]) {
    const refused = await login(base, token);
    assert.equal(refused.status, 401, `token ${JSON.stringify(token)}`);
    assert.equal(refused.headers.get('set-cookie'), null);
    const text = await refused.text();
    assert.match(text, /Wrong token/);
    assert.doesNotMatch(text, /echo_upper/);
  }

  // The right token: a session cookie that is not the token, with the flags that keep it safe.
  const ok = await login(base, TOKEN);
  assert.equal(ok.status, 303);
  const cookie = ok.headers.get('set-cookie') ?? '';
  assert.match(cookie, /^mcp_console=[A-Za-z0-9_-]{40,};/);
  assert.match(cookie, /; HttpOnly/);
  assert.match(cookie, /; SameSite=Strict/);
  assert.match(cookie, /; Path=\//);
  assert.doesNotMatch(cookie, /; Secure/, 'plain-HTTP loopback: a Secure cookie would be dropped');
  assert.ok(!cookie.includes(TOKEN));
  const session = cookie.split(';')[0];

  // Logged in: every page renders, and none holds the token.
  for (const path of ['/console/plugins', '/console/calls', '/console/health', '/console/gate']) {
    const response = await fetch(`${base}${path}`, { headers: { cookie: session } });
    assert.equal(response.status, 200, path);
    const text = await response.text();
    assert.ok(!text.includes(TOKEN), `${path} shows the token`);
    assert.match(response.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
  }
  const plugins = await (
    await fetch(`${base}/console/plugins`, { headers: { cookie: session } })
  ).text();
  assert.match(plugins, /echo_upper/);
  // Values are text, never markup.
  assert.match(plugins, /&lt;img src=x onerror=&quot;alert\(1\)&quot;&gt;&lt;script&gt;/);
  assert.doesNotMatch(plugins, /<script>alert/);
  assert.doesNotMatch(plugins, /<img src=x/);
  const csrf = /name="csrf" value="([^"]+)"/.exec(plugins)?.[1];
  assert.ok(csrf);

  // A forged cookie is no session: redirected to log in, changes refused.
  const forged = { cookie: 'mcp_console=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' };
  const forgedPage = await fetch(`${base}/console/plugins`, {
    headers: forged,
    redirect: 'manual',
  });
  assert.equal(forgedPage.status, 303);
  const forgedPost = await fetch(`${base}/console/plugins/unload`, {
    method: 'POST',
    headers: { ...forged, 'content-type': 'application/x-www-form-urlencoded' },
    body: form({ plugin: 'echo', csrf }),
  });
  assert.equal(forgedPost.status, 401);

  // The cookie without the CSRF token, or with another one: refused.
  for (const body of [form({ plugin: 'echo' }), form({ plugin: 'echo', csrf: `${csrf}x` })]) {
    const noCsrf = await fetch(`${base}/console/plugins/unload`, {
      method: 'POST',
      headers: { cookie: session, 'content-type': 'application/x-www-form-urlencoded' },
      body,
      redirect: 'manual',
    });
    assert.equal(noCsrf.status, 403);
  }

  // A cross-site POST, even with the cookie and the CSRF token: refused before anything runs.
  for (const headers of [
    { origin: 'https://evil.example' },
    { 'sec-fetch-site': 'cross-site' },
  ] as Record<string, string>[]) {
    const crossSite = await fetch(`${base}/console/plugins/unload`, {
      method: 'POST',
      headers: {
        ...headers,
        cookie: session,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: form({ plugin: 'echo', csrf }),
      redirect: 'manual',
    });
    assert.equal(crossSite.status, 403);
  }
  const crossSiteLogin = await fetch(`${base}/console/login`, {
    method: 'POST',
    headers: {
      origin: 'https://evil.example',
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: form({ token: TOKEN }),
    redirect: 'manual',
  });
  assert.equal(crossSiteLogin.status, 403);
  const stillLoaded = await (
    await fetch(`${base}/console/plugins`, { headers: { cookie: session } })
  ).text();
  assert.match(stillLoaded, /echo_upper/, 'nothing was unloaded');

  // The REST API still wants its bearer token: the console's cookie is not one.
  const rest = await fetch(`${base}/proxy/plugins`, { headers: { cookie: session } });
  assert.equal(rest.status, 401);

  // A live feed opened with the session (its first bytes arrive at once) ...
  const events = await fetch(`${base}/console/events`, { headers: { cookie: session } });
  assert.equal(events.status, 200);
  assert.match(events.headers.get('content-type') ?? '', /^text\/event-stream/);
  const stream = (events.body as ReadableStream<Uint8Array>).getReader();
  assert.match(new TextDecoder().decode((await stream.read()).value), /^retry:/);

  // Logging out ends the session: the same cookie no longer works, and its live feed ends.
  const out = await fetch(`${base}/console/logout`, {
    method: 'POST',
    headers: { cookie: session, 'content-type': 'application/x-www-form-urlencoded' },
    body: form({ csrf }),
    redirect: 'manual',
  });
  assert.equal(out.status, 303);
  assert.match(out.headers.get('set-cookie') ?? '', /Max-Age=0/);
  // (Bounded, so a feed that stays open fails the test instead of hanging it.)
  let timer: NodeJS.Timeout | undefined;
  const ended = await Promise.race([
    stream.read().then((r) => r.done),
    new Promise((resolve) => {
      timer = setTimeout(resolve, 60_000, 'still open');
    }),
  ]);
  clearTimeout(timer);
  assert.equal(ended, true, 'the live feed ended with the session');
  const after = await fetch(`${base}/console/plugins`, {
    headers: { cookie: session },
    redirect: 'manual',
  });
  assert.equal(after.status, 303);
});

test("a REST load that fails shows as the plugin's last error; its next success clears it", async (t) => {
  const base = await proxyWith(t, ['--mgmt-token', TOKEN], {
    'plugins/broken.ts': "export function register() { throw new Error('needs FLAKY_KEY'); }\n",
  });
  const session = ((await login(base, TOKEN)).headers.get('set-cookie') ?? '').split(
    ';',
  )[0] as string;
  const restPost = (path: string, plugin: string) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ plugin }),
    });
  const brokenRow = async () => {
    const page = await (
      await fetch(`${base}/console/plugins`, { headers: { cookie: session } })
    ).text();
    return /<tr data-plugin="broken">.*?<\/tr>/s.exec(page)?.[0] ?? '';
  };
  assert.doesNotMatch(await brokenRow(), /class="error"/, 'no error before any attempt');

  const failed = await restPost('/proxy/load', 'broken');
  assert.equal(((await failed.json()) as { ok: boolean }).ok, false);
  assert.match(await brokenRow(), /<span class="error">[^<]*needs FLAKY_KEY/);

  // Loading a plugin that is already loaded fails, and shows in its row.
  const twice = await restPost('/proxy/load', 'echo');
  assert.equal(((await twice.json()) as { ok: boolean }).ok, false);
  const page = await (
    await fetch(`${base}/console/plugins`, { headers: { cookie: session } })
  ).text();
  assert.match(page, /<tr data-plugin="echo">(?:(?!<\/tr>).)*already loaded/s);
  // Its next success (a reload) clears it.
  const reloaded = await restPost('/proxy/reload', 'echo');
  assert.equal(((await reloaded.json()) as { ok: boolean }).ok, true);
  const after = await (
    await fetch(`${base}/console/plugins`, { headers: { cookie: session } })
  ).text();
  const echoRow = /<tr data-plugin="echo">.*?<\/tr>/s.exec(after)?.[0] ?? '';
  assert.match(echoRow, /echo_upper/);
  assert.doesNotMatch(echoRow, /already loaded/);
});

test('--no-console: / and /console/* are not served', async (t) => {
  const base = await proxyWith(t, ['--mgmt-token', TOKEN, '--no-console']);
  const root = await fetch(`${base}/`, { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(root.status, 404);
  const login = await fetch(`${base}/console/login`);
  assert.equal(login.status, 401);
  const rest = await fetch(`${base}/proxy/plugins`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  assert.equal(rest.status, 200);
});

test('without a management token the console is loopback-only and still CSRF-safe', async (t) => {
  const base = await proxyWith(t, []);
  const first = await fetch(`${base}/console/plugins`, { redirect: 'manual' });
  assert.equal(first.status, 200);
  const cookie = (first.headers.get('set-cookie') ?? '').split(';')[0];
  assert.match(cookie, /^mcp_console=/);
  assert.match(await first.text(), /echo_upper/);
  // A change without the session's CSRF token is refused, with the cookie or without.
  for (const headers of [{}, { cookie }] as Record<string, string>[]) {
    const post = await fetch(`${base}/console/plugins/unload`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
      body: form({ plugin: 'echo' }),
      redirect: 'manual',
    });
    assert.ok(post.status === 401 || post.status === 403, `status ${post.status}`);
  }
  // A page reached through another host name (DNS rebinding) is refused.
  // (fetch sets Host itself, so this one goes through node:http.)
  const rebound = await new Promise<number | undefined>((resolve, reject) => {
    const url = new URL('/console/plugins', base);
    get(url, { headers: { host: 'evil.example' } }, (res) => {
      res.resume();
      resolve(res.statusCode);
    }).on('error', reject);
  });
  assert.equal(rebound, 403);
});

test('management_console: on by default, off in the config file', (t) => {
  const dir = testdir(
    { 'off.yaml': 'management_console: false\n', 'on.yaml': 'autoload: []\n' },
    t,
  );
  assert.equal(loadConfig({ file: `${dir}/on.yaml`, env: {} }).management_console, true);
  assert.equal(loadConfig({ file: `${dir}/off.yaml`, env: {} }).management_console, false);
});

test('the live feed sends the calls made after the page it was opened from, then the new ones', async (t) => {
  const home = testdir({}, t);
  const proxy = await startHttpProxy(t, ['-a', 'echo'], {
    env: { HOME: home, MCP_MGMT_TOKEN: '' },
  });
  const base = `http://127.0.0.1:${proxy.mgmtPort}`;
  const client = await connectHttp(t, proxy.mcpUrl);
  const call = (message: string) => client.callTool({ name: 'echo', arguments: { message } });
  // A page rendered after the first call (seq 1); two more calls before its stream opens.
  await call('before-page');
  const feed = (after: string, headers: Record<string, string> = {}) =>
    readEvents(t, `${base}/console/events?after=${after}`, headers);
  await call('gap-one');
  await call('gap-two');
  const opened = await feed('1');
  await opened.until(/gap-two/);
  await call('live');
  const seen = await opened.until(/live/);
  assert.doesNotMatch(seen, /before-page/, 'what the page already shows is not sent again');
  assert.match(seen, /id: 2\n.*gap-one.*id: 3\n.*gap-two.*id: 4\n.*live/s);
  // A browser reconnecting says what it has with Last-Event-ID, which wins over the URL's.
  const resumed = await feed('0', { 'last-event-id': '3' });
  const again = await resumed.until(/live/);
  assert.doesNotMatch(again, /gap-/);
});

/**
 * A console event stream opened with `headers`, closed after the test: `until` waits (at most a
 * minute, so a call that never comes fails the test instead of hanging it) for its text to match.
 */
async function readEvents(t: After, url: string, headers: Record<string, string>) {
  const abort = new AbortController();
  t.after(() => abort.abort());
  const response = await fetch(url, { headers, signal: abort.signal });
  assert.equal(response.status, 200);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  return {
    async until(pattern: RegExp): Promise<string> {
      const deadline = Date.now() + 60_000;
      while (!pattern.test(text)) {
        const { value, done } = await Promise.race([
          reader.read(),
          sleep(Math.max(0, deadline - Date.now())).then(() => {
            throw new Error(`no ${pattern} in the stream within a minute:\n${text}`);
          }),
        ]);
        if (done) throw new Error(`the stream ended without ${pattern}:\n${text}`);
        text += decoder.decode(value, { stream: true });
      }
      return text;
    },
  };
}
