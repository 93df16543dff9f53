import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { PluginServer } from '@mcpbox/framework';
import { ProtocolError, ResourceNotFoundError } from '@modelcontextprotocol/server';
import {
  callerOf,
  MAX_IMAGE_READ_BYTES,
  OutputResources,
  registerOutputResources,
} from './outputResources.ts';

const alice = { caller: 'principal:alice', kernel: 'k1' };

describe('output resources', () => {
  test('ids are unguessable: 128 random bits, different every time', () => {
    const store = new OutputResources();
    const a = store.addText(alice, 'text/plain', 'x').uri;
    const b = store.addText(alice, 'text/plain', 'x').uri;
    assert.notEqual(a, b);
    assert.match(a, /^ipybox:\/\/outputs\/[A-Za-z0-9_-]{22}$/);
  });

  test('a store of its own scheme (code mode): its URIs only, the other scheme not found', async () => {
    const scheme = { scheme: 'codemode', prefix: 'code', tool: 'execute_code' };
    const store = new OutputResources({ scheme });
    const uri = store.addText(alice, 'text/plain', 'x').uri;
    assert.match(uri, /^codemode:\/\/outputs\/[A-Za-z0-9_-]{22}$/);
    assert.match(
      store.addImage(alice, { path: '/nowhere.png', mimeType: 'image/png', data: Buffer.alloc(0) }),
      /^codemode:\/\/images\//,
    );
    assert.ok(await store.read(uri, alice.caller));
    await assert.rejects(
      store.read(uri.replace('codemode:', 'ipybox:'), alice.caller),
      ResourceNotFoundError,
    );
    const registered: string[] = [];
    const server = {
      registerResource: (name: string, template: { uriTemplate: { toString(): string } }) =>
        registered.push(`${name} ${template.uriTemplate}`),
      onSessionClosed: () => () => undefined,
    } as unknown as PluginServer;
    registerOutputResources(server, store);
    assert.deepEqual(registered, [
      'code_output codemode://outputs/{id}',
      'code_image codemode://images/{id}',
    ]);
  });

  test("another caller's output reads as not found, like one that never existed", async () => {
    const store = new OutputResources();
    const uri = store.addText(alice, 'text/plain', 'secret output').uri;
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
    const uris = ['a', 'b', 'c', 'd'].map((t) => store.addText(alice, 'text/plain', t).uri);
    assert.equal(store.size, 3);
    await assert.rejects(store.read(uris[0] as string, alice.caller), ResourceNotFoundError);
    assert.equal(
      ((await store.read(uris[3] as string, alice.caller)).contents[0] as { text: string }).text,
      'd',
    );
    const big = store.addText(alice, 'text/plain', 'x'.repeat(99)).uri;
    assert.equal(store.size, 2, 'the 99 characters pushed out all but one older entry');
    assert.ok(await store.read(big, alice.caller));
    // One output larger than an entry may be keeps its start and its end, with a note that
    // counts what the kernel layer had dropped already.
    const small = new OutputResources({ maxEntryChars: 100 });
    const whole = small.addText(alice, 'text/plain', 'w'.repeat(100));
    assert.deepEqual([whole.size, whole.whole], [100, true]);
    const huge = small.addText(alice, 'text/plain', `${'y'.repeat(250)}${'z'.repeat(250)}`, 1000);
    const text = ((await small.read(huge.uri, alice.caller)).contents[0] as { text: string }).text;
    const note =
      '\n[ipybox keeps at most 100 characters of one output: 1,400 characters from the middle are not here]\n';
    assert.equal(text, `${'y'.repeat(50)}${note}${'z'.repeat(50)}`);
    assert.deepEqual([huge.size, huge.whole], [text.length, false]);
  });

  test("a budget per caller: another caller's outputs never push out yours; over the store's bound the largest holder gives way", async () => {
    const bob = { caller: 'principal:bob', kernel: 'k2' };
    const store = new OutputResources({ maxEntries: 3, maxChars: 100, maxTotalEntries: 5 });
    const kept = store.addText(alice, 'text/plain', 'alice 1').uri;
    const flood = Array.from(
      { length: 10 },
      (_, i) => store.addText(bob, 'text/plain', `b${i}`).uri,
    );
    assert.ok(await store.read(kept, alice.caller), "bob's outputs pushed out alice's");
    // Bob keeps his latest 3, his own budget.
    await assert.rejects(store.read(flood[6] as string, bob.caller), ResourceNotFoundError);
    assert.ok(await store.read(flood[9] as string, bob.caller));
    assert.equal(store.size, 4);
    // Carol's two make six, over the store's bound of five: bob, holding the most, gives way.
    const carol = { caller: 'principal:carol', kernel: 'k3' };
    store.addText(carol, 'text/plain', 'carol 1');
    store.addText(carol, 'text/plain', 'carol 2');
    assert.equal(store.size, 5);
    await assert.rejects(store.read(flood[7] as string, bob.caller), ResourceNotFoundError);
    assert.ok(await store.read(kept, alice.caller));
    // Characters too: bob's 90 characters go before alice's small ones.
    const chars = new OutputResources({ maxChars: 100, maxTotalChars: 120 });
    const small = chars.addText(alice, 'text/plain', 'a'.repeat(20)).uri;
    const big = chars.addText(bob, 'text/plain', 'b'.repeat(90)).uri;
    chars.addText(bob, 'text/plain', 'c'.repeat(20));
    assert.ok(await chars.read(small, alice.caller));
    await assert.rejects(chars.read(big, bob.caller), ResourceNotFoundError);
    // A session that ends frees its budget.
    chars.dropCaller(bob.caller);
    assert.equal(chars.size, 1);
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
    const mine = store.addText({ caller: 'session:s1', kernel: 's1' }, 'text/plain', 'a').uri;
    const viaConnection = store.addText(
      { caller: 'connection:c1', kernel: 'default' },
      'text/plain',
      'b',
    ).uri;
    const theirs = store.addText({ caller: 'session:s2', kernel: 's2' }, 'text/plain', 'c').uri;
    closeListener?.({ connectionId: 'c1', sessionId: 's1' });
    assert.equal(store.size, 1);
    await assert.rejects(store.read(mine, 'session:s1'), ResourceNotFoundError);
    await assert.rejects(store.read(viaConnection, 'connection:c1'), ResourceNotFoundError);
    assert.ok(await store.read(theirs, 'session:s2'));
  });

  test('an image too large for one MCP message is refused with where to find the file', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'ipybox-resources-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const path = join(dir, 'big.png');
    await writeFile(path, Buffer.alloc(MAX_IMAGE_READ_BYTES + 1));
    const store = new OutputResources();
    const uri = store.addImage(alice, { path, mimeType: 'image/png', data: Buffer.alloc(0) });
    await assert.rejects(store.read(uri, alice.caller), (error: Error) => {
      assert.ok(error instanceof ProtocolError && !(error instanceof ResourceNotFoundError));
      assert.match(
        error.message,
        new RegExp(`too large for one MCP message .*read the file ${path}`),
      );
      return true;
    });
  });
});
