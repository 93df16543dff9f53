import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { PluginServer } from '@mcpbox/framework';
import { ResourceNotFoundError } from '@modelcontextprotocol/server';
import { callerOf, OutputResources, registerOutputResources } from './outputResources.ts';

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

  test("a session's end frees its entries; other callers' stay", async () => {
    let closeListener: ((closed: { connectionId: string; sessionId?: string }) => void) | undefined;
    const registered: string[] = [];
    const server = {
      registerResource: (name: string) => registered.push(name),
      onSessionClosed: (listener: typeof closeListener) => {
        closeListener = listener;
        return () => undefined;
      },
    } as unknown as PluginServer;
    const store = new OutputResources();
    registerOutputResources(server, store);
    assert.deepEqual(registered, ['cell_output', 'cell_image']);
    const mine = store.addText({ caller: 'session:s1', kernel: 's1' }, 'text/plain', 'a');
    const viaConnection = store.addText(
      { caller: 'connection:c1', kernel: 'default' },
      'text/plain',
      'b',
    );
    const theirs = store.addText({ caller: 'session:s2', kernel: 's2' }, 'text/plain', 'c');
    closeListener?.({ connectionId: 'c1', sessionId: 's1' });
    assert.equal(store.size, 1);
    await assert.rejects(store.read(mine, 'session:s1'), ResourceNotFoundError);
    await assert.rejects(store.read(viaConnection, 'connection:c1'), ResourceNotFoundError);
    assert.ok(await store.read(theirs, 'session:s2'));
  });
});
