/**
 * The operators' desk of a real `mcp-proxy` (issue 32): a policy rule puts every `echo` call
 * before an operator (`approver: operator`), and the waiting calls are listed and answered at
 * every door — the REST API, `mcp-proxy approvals list|approve|deny`, the console's Approvals
 * page, the approval WebSocket — while the MCP client's call waits. An approval runs exactly
 * that call; a denial refuses it; an answer given twice changes nothing; the caller may not
 * approve its own call with `proxy__approve`; the socket opens only with the management token
 * and never for a browser.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import type { PendingApproval } from '@mcpbox/framework';
import { connectHttp, runProxyCli, startHttpProxy, textOf, waitFor } from '@mcpbox/test-utils';
import WebSocket from 'ws';
import { testdir } from '../proxy/__fixtures__/testdir.ts';

const TOKEN = 'operator-token-for-tests';

const CONFIG = [
  'policy:',
  '  default: allow',
  '  rules:',
  '    - name: echo-needs-operator',
  '      tools: [echo]',
  "      approve: 'true'",
  '      approver: operator',
  '      approval_ttl: 120',
  '',
].join('\n');

test('calls waiting for an operator are listed and answered at every door', async (t) => {
  const dir = testdir({ 'proxy.yaml': CONFIG }, t);
  const proxy = await startHttpProxy(t, ['-c', join(dir, 'proxy.yaml'), '-a', 'echo'], {
    env: { HOME: dir, MCP_MGMT_TOKEN: TOKEN },
  });
  const base = `http://127.0.0.1:${proxy.mgmtPort}`;
  const auth = { authorization: `Bearer ${TOKEN}` };
  const cli = (...args: string[]) =>
    runProxyCli([...args, '--mgmt-port', String(proxy.mgmtPort)], {
      env: { MCP_MGMT_TOKEN: TOKEN },
    });
  const pending = async () => {
    const response = await fetch(`${base}/proxy/approvals`, { headers: auth });
    return ((await response.json()) as { pending: PendingApproval[] }).pending;
  };
  const waitingFor = async (message: string) => {
    let found: PendingApproval | undefined;
    await waitFor(async () => {
      found = (await pending()).find((p) => p.args.message === message);
      return found !== undefined;
    }, `the call with ${message} on the desk`);
    return found!;
  };
  const client = await connectHttp(t, proxy.mcpUrl);

  // REST and CLI list the waiting call; the caller's own proxy__approve may not answer it.
  const first = client.callTool({ name: 'echo', arguments: { message: 'one' } });
  const one = await waitingFor('one');
  assert.equal(one.subject.server, 'echo');
  assert.equal(one.subject.tool, 'echo');
  assert.equal(one.rule, 'echo-needs-operator');
  assert.equal((await fetch(`${base}/proxy/approvals`)).status, 401);
  const listed = await cli('approvals', 'list');
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(
    listed.stdout,
    new RegExp(`${one.id}  .* → echo\\.echo  \\(rule echo-needs-operator`),
  );
  assert.match(listed.stdout, /"message": "one"/);
  const own = await client.callTool({ name: 'proxy__approve', arguments: { id: one.id } });
  assert.equal(own.isError, true);
  assert.match(textOf(own), /a call of your own/);

  const approved = await cli('approvals', 'approve', one.id);
  assert.equal(approved.code, 0, approved.stderr);
  assert.match(approved.stdout, /^Approved echo\.echo for .*, once \(grant /);
  assert.equal(textOf(await first), 'one');
  const again = await cli('approvals', 'deny', one.id);
  assert.notEqual(again.code, 0);
  assert.match(again.stderr, /already answered: nothing changed/);
  assert.deepEqual(await pending(), []);

  // The console lists it with its arguments and denies it: the call is refused.
  const second = client.callTool({ name: 'echo', arguments: { message: 'two' } });
  const two = await waitingFor('two');
  const login = await fetch(`${base}/console/login`, {
    method: 'POST',
    redirect: 'manual',
    body: new URLSearchParams({ token: TOKEN }),
  });
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
  const page = await (await fetch(`${base}/console/approvals`, { headers: { cookie } })).text();
  assert.match(page, new RegExp(`data-approval="${two.id}"`));
  assert.match(page, /&quot;message&quot;: &quot;two&quot;/);
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
  const denied = await fetch(`${base}/console/approvals/deny`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ id: two.id, csrf }).toString(),
  });
  assert.equal(denied.status, 303);
  const refused = await second;
  assert.equal(refused.isError, true);
  assert.match(textOf(refused), /refused/);
  const after = await (await fetch(`${base}/console/approvals`, { headers: { cookie } })).text();
  assert.match(after, /Denied echo\.echo/);

  // The approval WebSocket: not without the token, never for a browser; it puts the call to
  // its client, whose yes runs it.
  const socketUrl = `ws://127.0.0.1:${proxy.mgmtPort}/proxy/approvals/socket`;
  assert.equal(await upgradeStatus(socketUrl, {}), 401);
  assert.equal(await upgradeStatus(socketUrl, { ...auth, origin: base }), 403);
  const socket = new WebSocket(socketUrl, { headers: auth });
  t.after(() => socket.close());
  const asked: Array<{ id: string; params: Record<string, unknown> }> = [];
  socket.on('message', (data) => {
    const message = JSON.parse(data.toString());
    if (message.method !== 'approve') return;
    asked.push(message);
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: true }));
  });
  await new Promise((resolve) => socket.once('open', resolve));
  const third = await client.callTool({ name: 'echo', arguments: { message: 'three' } });
  assert.equal(textOf(third), 'three');
  assert.equal(asked.length, 1);
  assert.deepEqual(
    { ...asked[0].params, expires_at: undefined },
    {
      server_name: 'echo',
      tool_name: 'echo',
      tool_args: { message: 'three' },
      principal: one.subject.principal,
      rule: 'echo-needs-operator',
      via: 'call',
      expires_at: undefined,
    },
  );
});

/** The HTTP status a WebSocket upgrade gets with these headers. */
function upgradeStatus(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    socket.once('unexpected-response', (_request, response) => {
      resolve(response.statusCode ?? 0);
      socket.terminate();
    });
    socket.once('open', () => {
      socket.close();
      reject(new Error('the upgrade was accepted'));
    });
    socket.once('error', () => undefined);
  });
}
