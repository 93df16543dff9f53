/**
 * The gate's state contract, run against the memory store (two gates on one store, as a plugin
 * reloaded in one process; `state.test.ts` beside it) and the Redis store (two gates on two links
 * to one real redis-server, as two replicas; `cluster/gateStore.test.ts`): an unlock made through
 * one holds through the other, a code is accepted once, failures add up to one lockout, a lock
 * revokes everywhere (handles too), a touch after a lock does not undo it, and a store that
 * cannot be read refuses (fails closed). It lives beside the gate, not in `state/`, because it
 * drives the stores through real gates.
 *
 * @module
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { codeAt, newSecret } from '@mcpbox/test-utils';
import type { GateStateStore } from '../state/gate.ts';
import { createGate, type Gate } from './gate.ts';
import { recordingLogger, testClock } from './testing.ts';

type After = { after(fn: () => unknown): void };

/** Two stores seen by two "replicas"; `kill` takes the shared state away (Redis only). */
export interface GateStores {
  a: GateStateStore;
  b: GateStateStore;
  kill?: () => Promise<void>;
}
export type MakeGateStores = (t: After) => Promise<GateStores>;

const PRINCIPAL = { authInfo: { clientId: 'ci', extra: { sub: 'alice' } } };
const OTHER = { authInfo: { clientId: 'ci', extra: { sub: 'bob' } } };

function gates(stores: GateStores) {
  const secret = newSecret();
  const clock = testClock();
  const make = (store: GateStateStore): Gate =>
    createGate(
      {
        enabled: true,
        secret_backend: 'env',
        groups: { shell: { timeout: 600, secret_ref: 'S' } },
      },
      { clock: clock.now, logger: recordingLogger(), env: { S: secret }, store },
    );
  return {
    a: make(stores.a),
    b: make(stores.b),
    clock,
    code: (steps = 0) => codeAt(secret, clock.now(), steps),
  };
}

/** What a protected call through `gate` answers: undefined when it may run. */
async function check(gate: Gate, ctx: object): Promise<string | undefined> {
  await gate.sync('shell');
  return gate.check('shell', ctx);
}

export function gateStateContract(name: string, factory: MakeGateStores): void {
  describe(`gate state contract, unlocks and codes: ${name}`, () => {
    test('an unlock made through one replica holds through the other, for that caller only', async (t) => {
      const { a, b, code } = gates(await factory(t));
      assert.equal((await a.unlock('shell', code(), PRINCIPAL)).ok, true);
      assert.equal(await check(b, PRINCIPAL), undefined);
      assert.match((await check(b, OTHER)) ?? '', /is locked/);
    });

    test('a code is accepted once across replicas, even at the same moment', async (t) => {
      const { a, b, code } = gates(await factory(t));
      const answers = await Promise.all([
        a.unlock('shell', code(), PRINCIPAL),
        b.unlock('shell', code(), OTHER),
      ]);
      assert.equal(answers.filter((answer) => answer.ok).length, 1, JSON.stringify(answers));
      assert.match(answers.find((answer) => !answer.ok)!.message, /already used/);
    });

    test('wrong codes on both replicas add up to one lockout that holds everywhere', async (t) => {
      const stores = await factory(t);
      const { a, b, code } = gates(stores);
      const shared = stores.a.scope === 'cluster';
      assert.equal((await a.unlock('shell', code(), PRINCIPAL)).ok, true);
      const wrong = code(5);
      const messages: string[] = [];
      for (let i = 0; i < 5; i++) {
        messages.push((await (i % 2 === 0 ? a : b).unlock('shell', wrong, OTHER)).message);
      }
      assert.deepEqual(messages.slice(0, 4), [
        'Invalid code. 4 attempt(s) left.',
        'Invalid code. 3 attempt(s) left.',
        'Invalid code. 2 attempt(s) left.',
        'Invalid code. 1 attempt(s) left.',
      ]);
      assert.match(messages[4]!, /locked out/);
      // Restarting one replica does not reset a shared lockout: the message says what does.
      assert.match(
        messages[4]!,
        shared ? /on every replica.*gate keys in Redis/ : /Restart the server to reset/,
      );
      assert.match(a.status(), shared ? /LOCKED OUT \(reset by deleting/ : /restart to reset/);
      assert.match((await check(a, PRINCIPAL)) ?? '', /locked out/, 'earlier unlocks revoked');
      assert.match((await check(b, PRINCIPAL)) ?? '', /locked out/);
      assert.match((await b.unlock('shell', code(1), PRINCIPAL)).message, /locked out/);
    });
  });
  lockContract(name, factory);
}

function lockContract(name: string, factory: MakeGateStores): void {
  describe(`gate state contract, locks and outages: ${name}`, () => {
    test('a lock on one replica revokes unlocks and handles on the other; a late touch does not undo it', async (t) => {
      const { a, b, code, clock } = gates(await factory(t));
      assert.equal((await a.unlock('shell', code(), PRINCIPAL)).ok, true);
      const handleAnswer = await a.unlock('shell', code(1), {});
      const handle = /gate_handle='([^']+)'/.exec(handleAnswer.message)?.[1];
      assert.ok(handle, handleAnswer.message);
      assert.equal(await check(b, { gateHandle: handle }), undefined, 'the handle works on B');

      // B uses the unlock (a touch on its copy), then A locks: the touch must not revive it.
      assert.equal(await check(b, PRINCIPAL), undefined);
      assert.deepEqual(a.lock('shell'), { ok: true, message: "Group 'shell' locked." });
      assert.equal(await a.settled(), undefined);
      clock.advance(1);
      assert.equal(await b.settled(), undefined);
      assert.match((await check(b, PRINCIPAL)) ?? '', /is locked/);
      assert.match((await check(b, { gateHandle: handle })) ?? '', /is locked/);
      assert.match((await check(a, PRINCIPAL)) ?? '', /is locked/);
    });

    test('the shared state unreachable: protected calls and unlocks are refused (fail closed)', async (t) => {
      const stores = await factory(t);
      if (!stores.kill) return t.skip('nothing shared to lose in memory');
      const { a, b, code } = gates(stores);
      assert.equal((await a.unlock('shell', code(), PRINCIPAL)).ok, true);
      assert.equal(await check(b, PRINCIPAL), undefined);
      await stores.kill();
      assert.match((await check(b, PRINCIPAL)) ?? '', /shared state cannot be reached/);
      const unlock = await a.unlock('shell', code(1), OTHER);
      assert.equal(unlock.ok, false);
      assert.match(unlock.message, /shared state cannot be reached/);
      assert.deepEqual(a.lock('shell'), { ok: true, message: "Group 'shell' locked." });
      assert.match((await a.settled()) ?? '', /could not reach the other replicas/);
    });
  });
}
