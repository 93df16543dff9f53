import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ResourceNotFoundError } from '@modelcontextprotocol/server';
import { callerOf, OutputResources } from './outputResources.ts';

const alice = { caller: 'principal:alice', kernel: 'k1' };

describe('output resources', () => {
  test('ids are unguessable: 128 random bits, different every time', () => {
    const store = new OutputResources();
    const a = store.addText(alice, 'text/plain', 'x');
    const b = store.addText(alice, 'text/plain', 'x');
    assert.notEqual(a, b);
    assert.match(a, /^ipybox:\/\/outputs\/[A-Za-z0-9_-]{22}$/);
  });

  test("another caller's output reads as not found, like one that never existed", async () => {
    const store = new OutputResources();
    const uri = store.addText(alice, 'text/plain', 'secret output');
    assert.equal((await store.read(uri, 'principal:alice')).contents[0]?.uri, uri);
    for (const [reader, target] of [
      ['principal:bob', uri],
      ['anonymous', uri],
      ['principal:alice', 'ipybox://outputs/AAAAAAAAAAAAAAAAAAAAAA'],
      ['principal:alice', 'ipybox://outputs/'],
    ] as const) {
      await assert.rejects(store.read(target, reader), (error: Error) => {
        assert.ok(error instanceof ResourceNotFoundError);
        assert.match(error.message, /has no output .*latest 200 outputs.*Run the cell again/);
        return true;
      });
    }
  });

  test('bounded: the oldest entries go first, by count and by characters', async () => {
    const store = new OutputResources({ maxEntries: 3, maxChars: 100 });
    const uris = ['a', 'b', 'c', 'd'].map((t) => store.addText(alice, 'text/plain', t));
    assert.equal(store.size, 3);
    await assert.rejects(store.read(uris[0] as string, alice.caller), ResourceNotFoundError);
    assert.equal(
      ((await store.read(uris[3] as string, alice.caller)).contents[0] as { text: string }).text,
      'd',
    );
    const big = store.addText(alice, 'text/plain', 'x'.repeat(99));
    assert.equal(store.size, 2, 'the 99 characters pushed out all but one older entry');
    assert.ok(await store.read(big, alice.caller));
    // One output larger than the whole store is kept cut, with a note.
    const huge = store.addText(alice, 'text/plain', 'y'.repeat(500));
    const text = ((await store.read(huge, alice.caller)).contents[0] as { text: string }).text;
    assert.match(text, /^y{100}\n\[ipybox kept only the first 100 characters of this output\]$/);
    assert.equal(store.size, 1);
  });

  test('callers: the OAuth principal, else the 2025 session, else one shared key', () => {
    const ctx = (extra: object) => extra as Parameters<typeof callerOf>[0];
    const alice = callerOf(
      ctx({ authInfo: { token: 't', clientId: 'c', scopes: [], extra: { sub: 'alice' } } }),
    );
    const bob = callerOf(
      ctx({ authInfo: { token: 't', clientId: 'c', scopes: [], extra: { sub: 'bob' } } }),
    );
    assert.match(alice, /^principal:/);
    assert.notEqual(alice, bob);
    assert.equal(callerOf(ctx({ sessionId: 's1' })), 'session:s1');
    assert.equal(callerOf(ctx({})), 'anonymous');
  });
});
