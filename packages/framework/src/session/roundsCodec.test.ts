// The server's requestState codec (createRoundsCodec): the per-process random-key codec is made
// on its first use (so start-up does not load node:crypto), and must seal and check exactly as
// the SDK's codec made at once; a configured key is still checked at creation.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRequestStateCodec, type ServerContext } from '@modelcontextprotocol/server';
import { createRoundsCodec, principalOf } from './inputRounds.ts';

const ctx = (clientId?: string) =>
  (clientId === undefined ? {} : { http: { authInfo: { clientId } } }) as unknown as ServerContext;
const payload = { calls: [{ id: 'a', answers: { q1: { action: 'accept' } } }] } as never;

test('the random-key codec seals and checks its own states, bound to the caller', async () => {
  const codec = createRoundsCodec();
  const state = await codec.mint(payload, ctx('alice'));
  assert.deepEqual(await codec.verify(state, ctx('alice')), payload);
  await assert.rejects(codec.verify(state, ctx('bob')));
});

test("a state sealed by another process's random key is refused, as the SDK's codec refuses it", async () => {
  const mine = createRoundsCodec();
  const theirs = createRoundsCodec();
  const state = await theirs.mint(payload, ctx());
  const sdk = createRequestStateCodec({ key: new Uint8Array(32).fill(7), bind: principalOf });
  const [lazyError, sdkError] = await Promise.all([
    mine.verify(state, ctx()).then(
      () => undefined,
      (error: Error) => error,
    ),
    sdk.verify(state, ctx()).then(
      () => undefined,
      (error: Error) => error,
    ),
  ]);
  assert.ok(lazyError instanceof Error && sdkError instanceof Error);
  assert.equal(lazyError.message, sdkError.message);
});

test('malformed and tampered states are refused', async () => {
  const codec = createRoundsCodec();
  await assert.rejects(codec.verify('not a state', ctx()));
  const state = await codec.mint(payload, ctx());
  // One character changed, not the last: every other base64url character carries six whole bits,
  // so the bytes differ (the last may carry padding bits, and "AA" may be what was there).
  const at = state.length - 3;
  const tampered = `${state.slice(0, at)}${state[at] === 'A' ? 'B' : 'A'}${state.slice(at + 1)}`;
  await assert.rejects(codec.verify(tampered, ctx()));
});

test('a configured key is shared: two codecs with it check each other’s states', async () => {
  const key = 'k'.repeat(40);
  const state = await createRoundsCodec(key).mint(payload, ctx('alice'));
  assert.deepEqual(await createRoundsCodec(key).verify(state, ctx('alice')), payload);
});

test('a configured key that is too short fails when the codec is made, not on first use', () => {
  assert.throws(() => createRoundsCodec('short'), RangeError);
});
