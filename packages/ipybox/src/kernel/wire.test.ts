import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { KernelSession } from './messages.ts';
import { MessageSigner, WireError } from './wire.ts';

const session = new KernelSession();
const message = session.message('execute_request', { code: 'print("é")' });

describe('MessageSigner', () => {
  it('signs header, parent header, metadata and content with HMAC-SHA256', () => {
    const frames = new MessageSigner('secret').encode(message);
    assert.equal(frames[0].toString(), '<IDS|MSG>');
    const expected = createHmac('sha256', 'secret');
    for (const part of frames.slice(2, 6)) expected.update(part);
    assert.equal(frames[1].toString(), expected.digest('hex'));
  });

  it('decodes what it encodes, after routing identities', () => {
    const signer = new MessageSigner('secret');
    const frames = [Buffer.from('identity'), ...signer.encode(message)];
    const decoded = signer.decode(frames);
    assert.deepEqual(decoded.header, message.header);
    assert.deepEqual(decoded.content, { code: 'print("é")' });
    assert.deepEqual(decoded.buffers, []);
  });

  it('rejects a tampered message and a message signed with another key', () => {
    const signer = new MessageSigner('secret');
    const tampered = signer.encode(message);
    tampered[5] = Buffer.from(JSON.stringify({ code: 'import os' }));
    assert.throws(() => signer.decode(tampered), WireError);
    const foreign = new MessageSigner('other').encode(message);
    assert.throws(() => signer.decode(foreign), /invalid signature/);
  });

  it('rejects frames without a delimiter or with broken JSON', () => {
    const signer = new MessageSigner('');
    assert.throws(() => signer.decode([Buffer.from('x')]), /malformed/);
    const frames = signer.encode(message);
    frames[2] = Buffer.from('{not json');
    assert.throws(() => signer.decode(frames), /malformed/);
  });

  it('leaves the signature empty when the key is empty (unsigned connection)', () => {
    assert.equal(new MessageSigner('').encode(message)[1].toString(), '');
  });

  it('refuses signature schemes other than hmac-sha256', () => {
    assert.throws(
      () => new MessageSigner('k', 'hmac-md5'),
      /unsupported signature scheme "hmac-md5"/,
    );
  });
});
