import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { describe, test } from 'node:test';
import { codeAt, firstText, newSecret } from '@mcpbox/test-utils';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { ConfigError } from '../errors.ts';
import { createServer } from '../server.ts';
import { createGate, GATE_CHANNEL, type GateEvent } from './gate.ts';
import { InMemoryGateStateStore } from './store.ts';
import { recordingLogger, testClock } from './testing.ts';

const SESSION_A = { sessionId: 'session-a' };
const SESSION_B = { sessionId: 'session-b' };

function setup(
  groups: Record<string, unknown> = { shell: { timeout: 7200, secret_ref: 'SHELL' } },
) {
  const secret = newSecret();
  const clock = testClock();
  const logger = recordingLogger();
  const gate = createGate(
    { enabled: true, secret_backend: 'env', groups },
    {
      clock: clock.now,
      logger,
      env: { SHELL: secret, OTHER: newSecret() },
      store: new InMemoryGateStateStore(),
    },
  );
  return { gate, secret, clock, logger, code: (steps = 0) => codeAt(secret, clock.now(), steps) };
}

describe('gate configuration', () => {
  test('reports every problem with its key, accepts interpolated strings', () => {
    assert.throws(
      () =>
        createGate({
          secret_backend: 'vaultwarden',
          vaultwarden_token: 'tok-not-echoed',
          groups: { shell: { timeout: 'soon', colour: 'red' } },
          typo: 1,
        }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        const text = error.issues.join('\n');
        assert.match(text, /^gate\.groups\.shell\.timeout: expected a number of seconds$/m);
        assert.match(text, /^gate\.groups\.shell: unknown key\(s\) colour$/m);
        assert.match(text, /^gate: unknown key\(s\) typo$/m);
        assert.match(text, /^gate\.vaultwarden_url: required when secret_backend is vaultwarden$/m);
        assert.ok(!error.message.includes('tok-not-echoed'));
        return true;
      },
    );
    const gate = createGate({ enabled: 'true', groups: { a: { timeout: '60' }, b: null } });
    assert.equal(gate.settings.groups.get('a')?.timeoutSeconds, 60);
    assert.equal(gate.settings.groups.get('a')?.secretRef, 'a');
    assert.equal(gate.settings.groups.get('b')?.timeoutSeconds, 7200);
    assert.equal(createGate(undefined).enabled, false);
  });
});

describe('unlocking', () => {
  test('accepts the codes of the previous, current and next step; refuses two steps away', async () => {
    for (const steps of [-1, 0, 1]) {
      const { gate, code } = setup();
      const answer = await gate.unlock('shell', code(steps), SESSION_A);
      assert.deepEqual(answer, {
        ok: true,
        message: "Group 'shell' unlocked. Auto-lock after 2h of inactivity.",
      });
      assert.equal(gate.check('shell', SESSION_A), undefined);
    }
    for (const steps of [-2, 2]) {
      const { gate, code } = setup();
      assert.deepEqual(await gate.unlock('shell', code(steps), SESSION_A), {
        ok: false,
        message: 'Invalid code. 4 attempt(s) left.',
      });
    }
  });

  test('a code already used is refused, in any session; the next code works', async () => {
    const { gate, code, clock } = setup();
    const first = code();
    assert.equal((await gate.unlock('shell', first, SESSION_A)).ok, true);
    const replay = await gate.unlock('shell', first, SESSION_B);
    assert.equal(replay.ok, false);
    assert.match(
      replay.message,
      /^This code was already used\. Wait for the next code \(about 20s\)\.$/,
    );
    // An older code still inside the window is refused too: steps only move forward.
    assert.equal((await gate.unlock('shell', code(-1), SESSION_B)).ok, false);
    clock.advance(30);
    assert.equal((await gate.unlock('shell', code(), SESSION_B)).ok, true);
  });

  test('malformed codes and unknown groups get clear answers and do not count as failures', async () => {
    const { gate, code } = setup();
    for (const bad of ['12345', 'abcdef', '', '1234567']) {
      assert.deepEqual(await gate.unlock('shell', bad, SESSION_A), {
        ok: false,
        message: 'Malformed code: expected the 6 digits your authenticator shows.',
      });
    }
    assert.deepEqual(await gate.unlock('nope', code(), SESSION_A), {
      ok: false,
      message: "Unknown group 'nope'. Known groups: shell.",
    });
    const spaced = `${code().slice(0, 3)} ${code().slice(3)}`;
    assert.equal((await gate.unlock('shell', spaced, SESSION_A)).ok, true);
  });

  test('five consecutive wrong codes lock the group out until restart, for every session', async () => {
    const { gate, code, clock } = setup();
    const wrong = code() === '000000' ? '111111' : '000000';
    assert.equal((await gate.unlock('shell', code(), SESSION_B)).ok, true);
    // A success resets the count: 4 wrong, 1 right, 4 wrong is not a lockout.
    for (let i = 0; i < 4; i++) await gate.unlock('shell', wrong, SESSION_A);
    clock.advance(30);
    assert.equal((await gate.unlock('shell', code(), SESSION_A)).ok, true);
    const answers = [];
    for (let i = 0; i < 5; i++)
      answers.push((await gate.unlock('shell', wrong, SESSION_A)).message);
    assert.deepEqual(answers, [
      'Invalid code. 4 attempt(s) left.',
      'Invalid code. 3 attempt(s) left.',
      'Invalid code. 2 attempt(s) left.',
      'Invalid code. 1 attempt(s) left.',
      "Group 'shell' is locked out after 5 failed attempts. Restart the server to reset.",
    ]);
    clock.advance(30);
    const right = await gate.unlock('shell', code(), { sessionId: 'fresh-session' });
    assert.equal(right.ok, false, 'a new session does not reset the lockout');
    assert.match(right.message, /locked out/);
    assert.match(gate.check('shell', SESSION_B) ?? '', /locked out/, 'earlier unlocks are revoked');
    assert.equal(gate.status(SESSION_A), '⛔ shell: LOCKED OUT (restart to reset)');
  });
});

describe('locking', () => {
  test('an unlocked group locks again after its inactivity timeout; each call restarts the clock', async () => {
    const { gate, code, clock } = setup({ shell: { timeout: 600, secret_ref: 'SHELL' } });
    await gate.unlock('shell', code(), SESSION_A);
    clock.advance(599);
    assert.equal(gate.check('shell', SESSION_A), undefined);
    clock.advance(599);
    assert.equal(gate.check('shell', SESSION_A), undefined);
    assert.equal(gate.status(SESSION_A), '✓ shell: UNLOCKED — auto-lock in 10m');
    clock.advance(90);
    assert.equal(gate.status(SESSION_A), '✓ shell: UNLOCKED — auto-lock in 8m 30s');
    clock.advance(510);
    assert.equal(
      gate.check('shell', SESSION_A),
      "Group 'shell' locked again after 10m of inactivity. Call gate_unlock(group='shell', code='<6-digit code from your authenticator>') first.",
    );
    assert.equal(gate.status(SESSION_A), '✗ shell: LOCKED');
  });

  test('gate_lock(group) and the kill switch gate_lock() revoke unlocks in every session', async () => {
    const { gate, code, clock } = setup({
      shell: { secret_ref: 'SHELL' },
      vault: { secret_ref: 'SHELL' },
    });
    await gate.unlock('shell', code(), SESSION_A);
    clock.advance(30);
    await gate.unlock('vault', code(), SESSION_B);
    assert.deepEqual(gate.lock('shell'), { ok: true, message: "Group 'shell' locked." });
    assert.notEqual(gate.check('shell', SESSION_A), undefined);
    assert.equal(gate.check('vault', SESSION_B), undefined);
    assert.deepEqual(gate.lock(''), { ok: true, message: 'All groups locked.' });
    assert.notEqual(gate.check('vault', SESSION_B), undefined);
    assert.deepEqual(gate.lock('nope'), {
      ok: false,
      message: "Unknown group 'nope'. Known groups: shell, vault.",
    });
  });

  test('publishes unlock, failure, lockout and blocked events for metrics', async () => {
    const { gate, code } = setup();
    const events: GateEvent[] = [];
    const onEvent = (message: unknown) => events.push(message as GateEvent);
    subscribe(GATE_CHANNEL, onEvent);
    try {
      gate.check('shell', SESSION_A);
      await gate.unlock('shell', code(), SESSION_A);
      for (let i = 0; i < 5; i++) await gate.unlock('shell', 'x00000'.replace('x', '9'), SESSION_A);
    } finally {
      unsubscribe(GATE_CHANNEL, onEvent);
    }
    const kinds = events.map((e) => `${e.event}:${e.group}`);
    assert.deepEqual(kinds.slice(0, 2), ['blocked:shell', 'unlock:shell']);
    assert.equal(kinds.at(-1), 'lockout:shell');
  });
});

describe('protect() through a real SDK client', () => {
  async function connect(
    gate: ReturnType<typeof createGate>,
    t: { after: (fn: () => Promise<void>) => void },
  ) {
    // The framework's server: each connection is a caller of its own (ctx.connectionId).
    const server = createServer({ name: 'gated', version: '1.0.0' });
    gate.registerTools(server);
    let counter = 0;
    server.registerTool(
      'sync_action',
      { inputSchema: { n: z.number() } },
      gate.protect('shell', ({ n }: { n: number }) => ({
        content: [{ type: 'text' as const, text: `sync ${n + ++counter}` }],
      })),
    );
    server.registerTool(
      'async_action',
      {},
      gate.protect('shell', async () => {
        await new Promise((r) => setImmediate(r));
        return { content: [{ type: 'text' as const, text: 'async done' }] };
      }),
    );
    server.registerTool(
      'throwing_action',
      {},
      gate.protect('shell', () => {
        throw new Error('handler failed');
      }),
    );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'test', version: '1.0.0' });
    await server.connect(serverSide);
    await client.connect(clientSide);
    t.after(async () => {
      await client.close();
      await server.close();
    });
    return client;
  }
  test('sync and async handlers both stay locked until gate_unlock, then run', async (t) => {
    const { gate, code, secret, logger } = setup();
    const client = await connect(gate, t);
    const tools = (await client.listTools()).tools.map((x) => x.name).sort();
    assert.deepEqual(tools, [
      'async_action',
      'gate_lock',
      'gate_status',
      'gate_unlock',
      'sync_action',
      'throwing_action',
    ]);

    for (const call of [
      { name: 'sync_action', arguments: { n: 1 } },
      { name: 'async_action', arguments: {} },
    ]) {
      const locked = await client.callTool(call);
      assert.equal(locked.isError, true);
      assert.equal(
        firstText(locked),
        "Group 'shell' is locked. Call gate_unlock(group='shell', code='<6-digit code from your authenticator>') first.",
      );
    }
    const wrong = await client.callTool({
      name: 'gate_unlock',
      arguments: { group: 'shell', code: '12345' },
    });
    assert.equal(wrong.isError, true);
    const theCode = code();
    const unlocked = await client.callTool({
      name: 'gate_unlock',
      arguments: { group: 'shell', code: theCode },
    });
    assert.equal(unlocked.isError, undefined);
    assert.equal(firstText(unlocked), "Group 'shell' unlocked. Auto-lock after 2h of inactivity.");
    assert.equal(
      firstText(await client.callTool({ name: 'sync_action', arguments: { n: 1 } })),
      'sync 2',
    );
    assert.equal(
      firstText(await client.callTool({ name: 'async_action', arguments: {} })),
      'async done',
    );
    const thrown = await client.callTool({ name: 'throwing_action', arguments: {} });
    assert.equal(thrown.isError, true);
    assert.match(firstText(thrown), /handler failed/);
    assert.equal(
      firstText(await client.callTool({ name: 'gate_status', arguments: {} })),
      '✓ shell: UNLOCKED — auto-lock in 2h',
    );
    assert.equal(
      firstText(await client.callTool({ name: 'gate_lock', arguments: {} })),
      'All groups locked.',
    );
    assert.equal((await client.callTool({ name: 'async_action', arguments: {} })).isError, true);

    const logText = logger.lines.join('\n');
    assert.ok(!logText.includes(secret), 'the secret is never logged');
    assert.ok(!logText.includes(theCode), 'the code is never logged');
  });

  test('a disabled gate registers no tools and lets protected handlers run', async (t) => {
    const gate = createGate({ enabled: false, groups: { shell: {} } });
    const client = await connect(gate, t);
    const tools = (await client.listTools()).tools.map((x) => x.name).sort();
    assert.deepEqual(tools, ['async_action', 'sync_action', 'throwing_action']);
    assert.equal(
      firstText(await client.callTool({ name: 'async_action', arguments: {} })),
      'async done',
    );
  });

  test('protecting a group that is not configured fails at registration, naming the group', () => {
    const { gate } = setup();
    assert.throws(
      () => gate.protect('shel', () => 'x'),
      /gate\.protect: Unknown group 'shel'\. Known groups: shell\./,
    );
  });
});
