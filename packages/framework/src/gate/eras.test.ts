// The gate's caller rule in both protocol eras, through real SDK v2 clients over real HTTP:
// an unlock reaches only the caller that presented the code.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { codeAt, firstText, newSecret } from '@mcpbox/test-utils';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startGatedServer } from '../__fixtures__/gatedServer.ts';
import { inMemoryClient } from '../__fixtures__/testServer.ts';
import { type Era, versionOfEra } from '../protocol/era.ts';
import { createServer } from '../server.ts';
import { callerKeyOf } from './caller.ts';
import { createGate } from './gate.ts';
import { InMemoryGateStateStore, processGateStore } from './store.ts';
import { recordingLogger } from './testing.ts';

async function client(url: string, era: Era, t: { after: (fn: () => Promise<void>) => void }) {
  const c = new Client(
    { name: `client-${era}`, version: '1.0.0' },
    { versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: versionOfEra(era) } } },
  );
  await c.connect(new StreamableHTTPClientTransport(new URL(url)));
  t.after(() => c.close());
  return c;
}

const call = (c: Client, name: string, args: Record<string, unknown>) =>
  c.callTool({ name, arguments: args });

test('2026 clients without a session: the unlock comes back as a handle only the unlocker holds', async (t) => {
  const { url, secret, gate } = await startGatedServer(t, new InMemoryGateStateStore());
  const a = await client(url, 'modern', t);
  const b = await client(url, 'modern', t);
  assert.equal(a.getProtocolEra(), 'modern');

  const unlocked = await call(a, 'gate_unlock', {
    group: 'shell',
    code: codeAt(secret, Date.now()),
  });
  assert.equal(unlocked.isError, undefined, firstText(unlocked));
  const handle = /gate_handle='([^']+)'/.exec(firstText(unlocked))?.[1];
  assert.ok(handle, `a handle in: ${firstText(unlocked)}`);

  // Neither caller is unlocked without the handle: there is no session to remember it by.
  for (const c of [a, b]) {
    const refused = await call(c, 'secret_action', { what: 'x' });
    assert.equal(refused.isError, true);
    assert.match(firstText(refused), /gate_handle/);
  }
  assert.equal(
    firstText(await call(a, 'secret_action', { what: 'x', gate_handle: handle })),
    'done: x',
  );

  // A forged or edited handle does nothing.
  const [payload, mac] = handle.split('.');
  const edited = `${Buffer.from(Buffer.from(payload, 'base64url').toString().replace('"shell"', '"shell"  ')).toString('base64url')}.${mac}`;
  for (const bad of [`${payload}.${'A'.repeat(mac.length)}`, edited, 'nonsense']) {
    assert.equal((await call(b, 'secret_action', { what: 'x', gate_handle: bad })).isError, true);
  }

  // A lock voids every handle.
  gate.lock('shell');
  assert.equal((await call(a, 'secret_action', { what: 'x', gate_handle: handle })).isError, true);
});

test('2025 sessions: an unlock stays with its session, and is gone when the session ends', async (t) => {
  const { url, secret } = await startGatedServer(t, new InMemoryGateStateStore());
  const a = await client(url, 'legacy', t);
  const b = await client(url, 'legacy', t);
  const modern = await client(url, 'modern', t);
  assert.equal(a.getProtocolEra(), 'legacy');

  const unlocked = await call(a, 'gate_unlock', {
    group: 'shell',
    code: codeAt(secret, Date.now()),
  });
  assert.equal(unlocked.isError, undefined, firstText(unlocked));
  assert.doesNotMatch(firstText(unlocked), /gate_handle/);
  assert.equal(firstText(await call(a, 'secret_action', { what: 'a' })), 'done: a');
  assert.equal((await call(b, 'secret_action', { what: 'b' })).isError, true);
  assert.equal((await call(modern, 'secret_action', { what: 'm' })).isError, true);
});

test('two connections of one server (stdio-like, in-memory) each keep their own unlock', async (t) => {
  const secret = newSecret();
  const gate = createGate(
    { groups: { shell: { secret_ref: 'S' } } },
    { env: { S: secret }, logger: recordingLogger(), store: new InMemoryGateStateStore() },
  );
  const server = createServer({ name: 'gated' });
  gate.registerTools(server);
  server.registerTool(
    'secret_action',
    {},
    gate.protect('shell', () => 'done'),
  );
  t.after(() => server.close());
  const [a, b] = [await inMemoryClient(server), await inMemoryClient(server)];
  t.after(() => Promise.all([a.close(), b.close()]).then(() => undefined));
  const unlocked = await call(a, 'gate_unlock', {
    group: 'shell',
    code: codeAt(secret, Date.now()),
  });
  assert.doesNotMatch(firstText(unlocked), /gate_handle/, 'a connection remembers its unlock');
  assert.equal(firstText(await call(a, 'secret_action', {})), 'done');
  assert.equal((await call(b, 'secret_action', {})).isError, true);
});

test('callers: the OAuth principal first, then the 2025 session, then the connection', () => {
  const alice = { token: 't1', clientId: 'app', extra: { sub: 'alice' } };
  assert.equal(
    callerKeyOf({ authInfo: alice, sessionId: 's1' }),
    callerKeyOf({ authInfo: { ...alice, token: 't2' }, sessionId: 's2' }),
    'one principal, two sessions and tokens: one caller',
  );
  assert.notEqual(
    callerKeyOf({ authInfo: alice }),
    callerKeyOf({ authInfo: { ...alice, extra: { sub: 'bob' } } }),
  );
  assert.equal(callerKeyOf({ sessionId: 's1', connectionId: 'c1' }), 'session:s1');
  assert.equal(callerKeyOf({ connectionId: 'c1' }), 'connection:c1');
  assert.equal(callerKeyOf({}), undefined, 'a 2026 request without auth has no lasting identity');
  assert.equal(callerKeyOf({ http: { authInfo: alice } }), callerKeyOf({ authInfo: alice }));
});

test('a 2025 session that ends takes its unlock with it', async (t) => {
  const secret = newSecret();
  const ref = `S_${process.pid}_${Date.now()}`; // a record of its own in the process store
  const gate = createGate(
    { groups: { shell: { secret_ref: ref } } },
    { env: { [ref]: secret }, logger: recordingLogger() },
  );
  const server = createServer({ name: 'gated', transport: 'http', port: 0 });
  gate.registerTools(server);
  const url = (await server.start()) as string;
  t.after(() => server.close());
  const unlocked = async () => [
    ...(await processGateStore.read(`shell\u0000env\u0000\u0000${ref}`)).unlocked.keys(),
  ];

  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: 'leaving', version: '1.0.0' });
  await client.connect(transport);
  t.after(() => client.close());
  await call(client, 'gate_unlock', { group: 'shell', code: codeAt(secret, Date.now()) });
  assert.deepEqual(await unlocked(), [`session:${transport.sessionId}`]);

  await transport.terminateSession(); // DELETE: the server closes the session
  for (let i = 0; i < 50 && (await unlocked()).length > 0; i++)
    await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(await unlocked(), [], 'the closed session holds no unlock');
});
