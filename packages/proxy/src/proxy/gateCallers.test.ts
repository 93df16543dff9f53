/**
 * The TOTP gate inside a real `mcp-proxy` over HTTP, with two 2025 sessions (issue 15 items 1
 * and 3): an unlock made through `proxy__run` belongs to the caller who made it — never to the
 * other session — and a group locked out by wrong codes stays locked out across reload and
 * unload + load of the plugin that created the gate.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { codeAt, connectHttp, newSecret, startHttpProxy, toolListener } from '@mcpbox/test-utils';
import type { Client } from '@modelcontextprotocol/client';
import { testdir } from './__fixtures__/testdir.ts';

type After = { after: (fn: () => Promise<void> | void) => void };

const text = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as Array<{ type: string; text?: string }>)[0]?.text ?? '';

async function proxyWithGated(t: After) {
  const secret = newSecret();
  const dir = testdir({ 'proxy.yaml': 'dynamic_dispatch: true\n' }, t);
  const proxy = await startHttpProxy(t, ['-c', join(dir, 'proxy.yaml'), '-a', 'echo'], {
    env: { HOME: dir, MCP_GATE_SECRET_SECRETS: secret },
    timeoutMs: 60_000,
  });
  const connect = (name: string) => connectHttp(t, proxy.mcpUrl, { name });
  return { secret, connect, url: proxy.mcpUrl };
}

const run = (client: Client, tool: string, args: Record<string, unknown>) =>
  client.callTool({ name: 'proxy__run', arguments: { tool, arguments: args } });

test("proxy__run applies the caller's own gate state, never another session's", async (t) => {
  const { secret, connect } = await proxyWithGated(t);
  const a = await connect('session-a');
  const b = await connect('session-b');
  // Loaded at runtime, so its tools are dynamic: reachable through proxy__run.
  const loaded = await a.callTool({ name: 'proxy__load', arguments: { plugin: 'gated' } });
  assert.equal(loaded.isError, undefined, text(loaded));

  const unlocked = await run(a, 'gate_unlock', {
    group: 'secrets',
    code: codeAt(secret, Date.now()),
  });
  assert.equal(unlocked.isError, undefined, text(unlocked));
  assert.match(text(unlocked), /unlocked/);

  // B presented no code: refused through proxy__run and directly.
  const viaRun = await run(b, 'gated_secret_action', { what: 'steal' });
  assert.equal(viaRun.isError, true);
  assert.match(text(viaRun), /locked/);
  const direct = await b.callTool({ name: 'gated_secret_action', arguments: { what: 'steal' } });
  assert.equal(direct.isError, true);

  // A unlocked through proxy__run, as itself: both paths work for A.
  assert.equal(text(await run(a, 'gated_secret_action', { what: 'a1' })), 'Done: a1');
  assert.equal(
    text(await a.callTool({ name: 'gated_secret_action', arguments: { what: 'a2' } })),
    'Done: a2',
  );
  assert.match(text(await run(b, 'gate_status', {})), /✗ secrets: LOCKED/);
});

test("a lockout survives reload and unload + load of the gate's plugin", async (t) => {
  const { secret, connect } = await proxyWithGated(t);
  const a = await connect('attacker');
  await a.callTool({ name: 'proxy__load', arguments: { plugin: 'gated' } });
  for (let i = 0; i < 5; i++) {
    const wrong = await a.callTool({
      name: 'gate_unlock',
      arguments: { group: 'secrets', code: '000000' },
    });
    assert.equal(wrong.isError, true);
  }
  const reloaded = await a.callTool({ name: 'proxy__reload', arguments: { plugin: 'gated' } });
  assert.equal(reloaded.isError, undefined, text(reloaded));
  const afterReload = await a.callTool({
    name: 'gate_unlock',
    arguments: { group: 'secrets', code: codeAt(secret, Date.now()) },
  });
  assert.equal(afterReload.isError, true);
  assert.match(text(afterReload), /locked out/);

  await a.callTool({ name: 'proxy__unload', arguments: { plugin: 'gated' } });
  await a.callTool({ name: 'proxy__load', arguments: { plugin: 'gated' } });
  const afterLoad = await a.callTool({
    name: 'gate_unlock',
    arguments: { group: 'secrets', code: codeAt(secret, Date.now()) },
  });
  assert.match(text(afterLoad), /locked out/);
});

test('a 2025 and a 2026 client on one mcp-proxy both hear about a plugin loaded at runtime', async (t) => {
  const { url, connect } = await proxyWithGated(t);
  const listeners = [
    await toolListener(url, 'legacy', 'gated_secret_action', t),
    await toolListener(url, 'modern', 'gated_secret_action', t),
  ];
  assert.deepEqual(
    listeners.map(({ client }) => client.getProtocolEra()),
    ['legacy', 'modern'],
  );
  // Let the 2026 client's subscriptions/listen stream be acknowledged before the change.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const operator = await connect('operator');
  const loaded = await operator.callTool({ name: 'proxy__load', arguments: { plugin: 'gated' } });
  assert.equal(loaded.isError, undefined, text(loaded));
  for (const { heard } of listeners) assert.ok((await heard).includes('gate_unlock'));
});
