/**
 * The grant book's and the operators' desk's contract, run against one memory store
 * (`approvals.test.ts`) and two links to a real redis-server (`cluster/approvals.test.ts`), as
 * two replicas see them: a grant issued on one is taken on the other, once; a replayed, moved,
 * tampered or expired grant is refused; a call waiting on one replica is listed and answered on
 * the other, once.
 *
 * @module
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { waitFor } from '@mcpbox/test-utils';
import { randomKeyRing } from '../state/keys.ts';
import type { RecordStore } from '../state/records.ts';
import { OperatorDesk } from './desk.ts';
import { GrantBook } from './grants.ts';
import type { ApprovalSubject } from './types.ts';

type After = { after(fn: () => unknown): void };
export type MakeReplicaStores = (t: After) => Promise<{ a: RecordStore; b: RecordStore }>;

const SUBJECT: ApprovalSubject = {
  principal: 'sub:alice',
  server: 'billing',
  tool: 'billing__refund',
  argsDigest: 'a'.repeat(64),
  policyVersion: 'b'.repeat(64),
};

const MINUTE = 60_000;

/** Two replicas' books: their own stores, one cluster's keys. */
function books(a: RecordStore, b: RecordStore, clock?: () => number) {
  const keys = randomKeyRing();
  return [new GrantBook(a, () => keys, { clock }), new GrantBook(b, () => keys, { clock })];
}

export function approvalsContract(name: string, make: MakeReplicaStores): void {
  describe(`approvals contract: ${name}`, () => {
    test('a grant issued on one replica is taken on the other, once', async (t) => {
      const { a, b } = await make(t);
      const [issuer, taker] = books(a, b) as [GrantBook, GrantBook];
      const { grant, token } = await issuer.issue(SUBJECT, 'sub:olga', MINUTE);
      const takes = await Promise.all([
        taker.take(token, SUBJECT),
        issuer.take(token, SUBJECT),
        taker.take(token, SUBJECT),
      ]);
      const taken = takes.filter((r) => r.ok);
      assert.equal(taken.length, 1, JSON.stringify(takes));
      assert.deepEqual(taken[0], { ok: true, grant });
      for (const refused of takes.filter((r) => !r.ok)) {
        assert.deepEqual(refused.ok ? undefined : refused.reason, 'used');
      }
      const again = await taker.take(token, SUBJECT);
      assert.equal(again.ok, false);
      assert.match(again.ok ? '' : again.message, /used already/);
    });

    test('a grant moved to another call, tampered with or made up is refused, and stays good', async (t) => {
      const { a, b } = await make(t);
      const [issuer, taker] = books(a, b) as [GrantBook, GrantBook];
      const { token } = await issuer.issue(SUBJECT, 'sub:olga', MINUTE);
      const moves: [Partial<ApprovalSubject>, RegExp][] = [
        [{ argsDigest: 'c'.repeat(64) }, /other arguments/],
        [{ tool: 'billing__wipe' }, /another tool/],
        [{ principal: 'sub:mallory' }, /another principal/],
        [{ server: 'other' }, /another server/],
        [{ policyVersion: 'd'.repeat(64) }, /another policy/],
      ];
      for (const [move, message] of moves) {
        const refused = await taker.take(token, { ...SUBJECT, ...move });
        assert.equal(refused.ok ? '' : refused.reason, 'mismatch');
        assert.match(refused.ok ? '' : refused.message, message);
      }
      const [id, mac] = token.split('.') as [string, string];
      const flipped = `${mac.slice(0, 10)}${mac[10] === 'A' ? 'B' : 'A'}${mac.slice(11)}`;
      const tampered = await taker.take(`${id}.${flipped}`, SUBJECT);
      assert.equal(tampered.ok ? '' : tampered.reason, 'forged');
      // The last character's spare bits: the same bytes spelled otherwise are not the token.
      const digits = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
      const respelled = `${mac.slice(0, -1)}${digits[digits.indexOf(mac.at(-1) ?? 'A') ^ 1]}`;
      assert.deepEqual(Buffer.from(respelled, 'base64url'), Buffer.from(mac, 'base64url'));
      const twin = await taker.take(`${id}.${respelled}`, SUBJECT);
      assert.equal(twin.ok ? '' : twin.reason, 'forged');
      const madeUp = await taker.take(`${'x'.repeat(22)}.${mac}`, SUBJECT);
      assert.equal(madeUp.ok ? '' : madeUp.reason, 'unknown');
      assert.equal((await taker.take('not a token', SUBJECT)).ok, false);
      // A key other than the cluster's (another cluster, a guess) signs nothing here.
      const [stranger] = books(a, b) as [GrantBook];
      const foreign = await stranger.issue(SUBJECT, 'sub:eve', MINUTE);
      assert.equal((await taker.take(foreign.token, SUBJECT)).ok, false);
      assert.equal((await taker.take(token, SUBJECT)).ok, true, 'the genuine call still may');
    });

    test('an expired grant is refused', async (t) => {
      const { a, b } = await make(t);
      let now = Date.now();
      const [issuer, taker] = books(a, b, () => now) as [GrantBook, GrantBook];
      const { token } = await issuer.issue(SUBJECT, 'sub:olga', MINUTE);
      now += MINUTE;
      const late = await taker.take(token, SUBJECT);
      assert.equal(late.ok ? '' : late.reason, 'expired');
    });

    test('a call waiting on one replica is listed and answered on the other, once', async (t) => {
      const { a, b } = await make(t);
      const [bookA, bookB] = books(a, b) as [GrantBook, GrantBook];
      const [deskA, deskB] = [new OperatorDesk(a, bookA), new OperatorDesk(b, bookB)];
      let heard = 0;
      const stop = deskB.onChange(() => heard++);
      t.after(stop);
      const request = { subject: SUBJECT, args: { amount: 500 }, rule: 'big', via: 'call' };
      const waiting = deskA.wait(request, MINUTE);
      const listed = await until(async () => (await deskB.pending())[0]);
      assert.deepEqual(
        { subject: listed.subject, args: listed.args, rule: listed.rule },
        { subject: SUBJECT, args: { amount: 500 }, rule: 'big' },
      );
      const answers = await Promise.all([
        deskB.answer(listed.id, true, 'sub:olga'),
        deskA.answer(listed.id, false, 'sub:oscar'),
      ]);
      // One answer decides; the other is told the call was answered already.
      const late = answers.filter((answer) => !answer.ok && answer.reason === 'answered');
      assert.equal(late.length, 1, JSON.stringify(answers));
      const waited = await waiting;
      if (answers[0]?.ok) {
        assert.ok(waited.ok);
        assert.equal((await bookA.take(waited.token, SUBJECT)).ok, true, 'the grant runs the call');
      } else assert.deepEqual(waited, { ok: false, reason: 'refused', by: 'sub:oscar' });
      assert.deepEqual(await deskB.answer(listed.id, true, 'sub:olga'), {
        ok: false,
        reason: 'answered',
      });
      assert.deepEqual(await deskB.pending(), []);
      assert.deepEqual(await deskB.answer('no-such-id', true, 'sub:olga'), {
        ok: false,
        reason: 'unknown',
      });
      await waitFor(() => heard >= 2, 'the other replica to hear of the wait');
    });

    test('a wait no one answers expires; an answer after that is told so', async (t) => {
      const { a, b } = await make(t);
      const [bookA, bookB] = books(a, b) as [GrantBook, GrantBook];
      const [deskA, deskB] = [new OperatorDesk(a, bookA), new OperatorDesk(b, bookB)];
      const request = { subject: SUBJECT, args: {}, rule: 'big', via: 'code' };
      const waiting = deskA.wait(request, 300);
      const listed = await until(async () => (await deskB.pending())[0]);
      assert.deepEqual(await waiting, { ok: false, reason: 'expired' });
      assert.deepEqual(await deskB.answer(listed.id, true, 'sub:olga'), {
        ok: false,
        reason: 'expired',
      });
      const controller = new AbortController();
      const cancelled = deskA.wait(request, MINUTE, controller.signal);
      await until(async () => (await deskB.pending())[0]);
      controller.abort();
      assert.deepEqual(await cancelled, { ok: false, reason: 'cancelled' });
    });
  });
}

/** What `probe` finds, once it finds something. */
async function until<T>(probe: () => Promise<T | undefined>): Promise<T> {
  let found: T | undefined;
  await waitFor(async () => {
    found = await probe();
    return found !== undefined;
  }, 'the waiting call to be listed');
  return found as T;
}
