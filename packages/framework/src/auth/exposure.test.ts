import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recordingLogger } from '../gate/testing.ts';
import { checkUnauthenticatedBind, isLoopbackHost, UnauthenticatedBindError } from './exposure.ts';

test('loopback: localhost, 127.0.0.0/8 and ::1 in their spellings; anything else is not', () => {
  for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST', '::1', '[::1]']) {
    assert.equal(isLoopbackHost(host), true, host);
  }
  assert.equal(isLoopbackHost('::ffff:127.0.0.1'), true);
  for (const host of [
    '0.0.0.0',
    '::',
    '',
    '192.168.1.5',
    '10.0.0.1',
    '128.0.0.1',
    '127.0.0.1.example.com',
    'localhost.example.com',
    'example.com',
    '::ffff:10.0.0.1',
  ]) {
    assert.equal(isLoopbackHost(host), false, host);
  }
});

test('the message names what, where, and the three ways out in the program’s own words', () => {
  const logger = recordingLogger();
  const bind = {
    what: 'the management API',
    host: '0.0.0.0',
    allowUnauthenticated: false,
    remedies: { loopback: 'LOOP', authenticate: 'set a token (AUTH)', allow: 'ALLOW' },
  };
  assert.throws(
    () => checkUnauthenticatedBind(bind, logger),
    (e: unknown) =>
      e instanceof UnauthenticatedBindError &&
      e.host === '0.0.0.0' &&
      e.message ===
        'refusing to serve the management API on 0.0.0.0 without authentication: other machines ' +
          'can reach that address. Bind to loopback (LOOP), set a token (AUTH), or serve it open ' +
          'on purpose with ALLOW.',
  );
  checkUnauthenticatedBind({ ...bind, host: '127.0.0.1' }, logger);
  assert.deepEqual(logger.lines, []);
  checkUnauthenticatedBind({ ...bind, allowUnauthenticated: true }, logger);
  assert.equal(logger.lines.length, 1);
  assert.match(logger.lines[0], /^warn the management API on 0\.0\.0\.0 has no authentication/);
});
