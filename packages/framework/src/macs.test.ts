import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import { macMatches } from './macs.ts';

test('a MAC matches only as its token spells it, not as another spelling of the same bytes', () => {
  const mac = createHmac('sha256', 'key').update('payload').digest();
  const text = mac.toString('base64url');
  assert.equal(macMatches(text, mac), true);
  const digits = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const spareBits = `${text.slice(0, -1)}${digits[digits.indexOf(text.at(-1) ?? 'A') ^ 1]}`;
  const stray = `${text.slice(0, 5)}!${text.slice(5)}`;
  for (const other of [spareBits, stray]) {
    assert.deepEqual(Buffer.from(other, 'base64url'), mac, 'the decoder reads the same bytes');
    assert.equal(macMatches(other, mac), false);
  }
  assert.equal(macMatches('', mac), false);
});
