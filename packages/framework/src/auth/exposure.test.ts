import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recordingLogger } from '../gate/testing.ts';
import { checkUnauthenticatedBind, UnauthenticatedBindError } from './exposure.ts';

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
