/**
 * The console's log-in back-off, against a real `mcp-proxy`: after five wrong tokens from one
 * address the form answers 429 with `Retry-After` and takes no token, not even the right one;
 * once the wait is over the right token logs in and clears the count.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startProxy } from '@mcpbox/test-utils';
import { testdir } from '../proxy/__fixtures__/testdir.ts';
import { FREE_FAILURES } from './loginThrottle.ts';

const TOKEN = 'console-throttle-token-0123456789';

function login(base: string, token: string) {
  return fetch(`${base}/console/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }).toString(),
    redirect: 'manual',
  });
}

test('console log-in: after five wrong tokens, 429 with Retry-After, even for the right token', async (t) => {
  const home = testdir({}, t);
  const proxy = await startProxy(
    ['--http', '0', '--mgmt-port', '0', '-a', 'echo', '--mgmt-token', TOKEN],
    { env: { HOME: home, MCP_MGMT_TOKEN: '' } },
  );
  t.after(() => proxy.stop());
  const base = `http://127.0.0.1:${proxy.mgmtPort}`;

  for (let i = 0; i < FREE_FAILURES; i++) {
    const wrong = await login(base, `guess-${i}`);
    assert.equal(wrong.status, 401, `guess ${i}`);
    assert.match(await wrong.text(), /Wrong token/);
  }
  const locked = await login(base, TOKEN);
  assert.equal(locked.status, 429);
  const retryAfter = Number(locked.headers.get('retry-after'));
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1, `Retry-After: ${retryAfter}`);
  assert.match(await locked.text(), /Too many wrong tokens from this address: try again in \d+ s/);
  assert.equal(locked.headers.get('set-cookie'), null, 'no session while locked out');

  // As the client is told: wait, then the right token works.
  await sleep(retryAfter * 1000);
  const ok = await login(base, TOKEN);
  assert.equal(ok.status, 303);
  assert.match(ok.headers.get('set-cookie') ?? '', /^mcp_console=/);
  // …and clears the count: the next wrong token is one of five again, not another lock-out.
  assert.equal((await login(base, 'one-more-guess')).status, 401);
});
