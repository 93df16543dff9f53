// Kernel handles, the caller rule and tombstones, on their own (the HTTP and stdio tests run them
// through real servers and clients).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Redactor } from '@mcpbox/framework';
import { kernelCallerOf, keysOfClosed } from './kernelCaller.ts';
import { mintKernelHandle, parseKernelHandle, sameSecret } from './kernelHandles.ts';
import { Tombstones } from './kernelTombstones.ts';

test('a handle parses back to its id and secret digest; any other text does not match', () => {
  const minted = mintKernelHandle();
  const parsed = parseKernelHandle(minted.handle);
  assert.equal(parsed?.id, minted.id);
  assert.ok(parsed && sameSecret(parsed.digest, minted.digest));
  assert.notEqual(mintKernelHandle().handle, minted.handle);

  const other = mintKernelHandle();
  const swapped = parseKernelHandle(`ipk_${minted.id}_${other.handle.slice(-24)}`);
  assert.ok(swapped, 'well-formed');
  assert.equal(sameSecret(swapped.digest, minted.digest), false, 'another secret does not match');
  for (const text of ['', 'ipk_', minted.id, `${minted.handle}x`, minted.handle.toUpperCase()]) {
    assert.equal(parseKernelHandle(text), undefined, text);
  }
  assert.equal(sameSecret(Buffer.alloc(3), minted.digest), false, 'length differs: no throw');
});

test("a call's owner and default kernel, by kind of caller", () => {
  const alice = { token: 't', clientId: 'app', extra: { sub: 'alice' } };
  const stdio = kernelCallerOf({ connectionId: 'c1' });
  assert.deepEqual(stdio, {
    owner: 'connection:c1',
    home: 'connection:c1',
    reapHomeWhenIdle: false,
  });
  const session = kernelCallerOf({ connectionId: 'c2', sessionId: 's2' });
  assert.deepEqual(session, { owner: 'session:s2', home: 'session:s2', reapHomeWhenIdle: true });
  // An authenticated 2025 session: its own default kernel, kernels it opens owned by the principal.
  const authedSession = kernelCallerOf({ sessionId: 's3', connectionId: 'c3', authInfo: alice });
  assert.equal(authedSession.home, 'session:s3');
  assert.match(authedSession.owner ?? '', /^principal:/);
  const principal = kernelCallerOf({ http: { authInfo: alice } });
  assert.equal(principal.home, authedSession.owner);
  assert.equal(principal.owner, authedSession.owner);
  assert.deepEqual(kernelCallerOf({}), {
    owner: undefined,
    home: undefined,
    reapHomeWhenIdle: true,
  });
  assert.deepEqual(keysOfClosed({ connectionId: 'c2', sessionId: 's2' }), [
    'connection:c2',
    'session:s2',
  ]);
});

test('tombstones keep the newest entries only; take removes', () => {
  const stones = new Tombstones<string, number>(2);
  stones.add('a', 1);
  stones.add('b', 2);
  stones.add('c', 3);
  assert.equal(stones.get('a'), undefined, 'the oldest went');
  assert.equal(stones.get('c'), 3);
  assert.equal(stones.take('b'), 2);
  assert.equal(stones.get('b'), undefined);
});

test('tool-call logs never keep a handle (whoever holds one reaches the kernel)', () => {
  const { handle } = mintKernelHandle();
  // By its format, not only by looking random: also with the heuristics turned off.
  const redactor = new Redactor({ redact_heuristics: false });
  for (const text of [
    `[new kernel: pass kernel="${handle}" to keep using its state]`,
    JSON.stringify({ code: 'x', kernel: handle }),
    handle,
  ]) {
    const logged = redactor.text(text);
    assert.equal(logged.includes(handle.slice(-24)), false, logged);
  }
});
