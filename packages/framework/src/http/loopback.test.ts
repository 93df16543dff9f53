import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hostOfHeader, isLoopbackHost } from './loopback.ts';

test('loopback: localhost, 127.0.0.0/8 and ::1 in every spelling a bind or a Host can carry', () => {
  for (const host of [
    '127.0.0.1',
    '127.0.0.2',
    '127.1.2.3',
    '127.255.255.255',
    'localhost',
    'LOCALHOST',
    'LocalHost',
    'localhost.',
    ' localhost ',
    '::1',
    '[::1]',
    '0:0:0:0:0:0:0:1',
    '[0:0:0:0:0:0:0:1]',
    '0000:0000:0000:0000:0000:0000:0000:0001',
    '::ffff:127.0.0.1',
    '[::ffff:127.0.0.1]',
    '::FFFF:127.9.8.7',
    '::ffff:7f00:1',
    '0:0:0:0:0:ffff:127.0.0.2',
  ]) {
    assert.equal(isLoopbackHost(host), true, host);
  }
});

test('not loopback: other addresses, names, and spellings it does not recognise (fail closed)', () => {
  for (const host of [
    '',
    '0.0.0.0',
    '::',
    '[::]',
    '192.168.1.5',
    '10.0.0.1',
    '128.0.0.1',
    '126.255.255.255',
    '127.0.0.256',
    '127.0.0.1.',
    '127.1',
    '0177.0.0.1',
    '2130706433',
    '0x7f.0.0.1',
    '127.0.0.1.example.com',
    'localhost.example.com',
    'sub.localhost',
    'localhost..',
    'local%68ost',
    'example.com',
    'evil.example',
    '::ffff:10.0.0.1',
    '::ffff:0:127.0.0.1',
    '::127.0.0.1',
    '::2',
    'fe80::1',
    'fe80::1%lo',
    '[::1',
    '::1]',
  ]) {
    assert.equal(isLoopbackHost(host), false, host);
  }
});

test('the host of a Host header: name, name:port, [v6]:port; anything else names no host', () => {
  assert.equal(hostOfHeader('localhost'), 'localhost');
  assert.equal(hostOfHeader('127.0.0.2:8000'), '127.0.0.2');
  assert.equal(hostOfHeader('[::1]:8000'), '[::1]');
  assert.equal(hostOfHeader('[::ffff:127.0.0.1]'), '[::ffff:127.0.0.1]');
  assert.equal(hostOfHeader('evil.example:80'), 'evil.example');
  for (const value of [
    '',
    'evil.example@127.0.0.1',
    '127.0.0.1/x',
    '127.0.0.1:80:80',
    '::1',
    'local%68ost',
    '127.0.0.1:port',
    'a b',
  ]) {
    assert.equal(hostOfHeader(value), undefined, value);
  }
});
