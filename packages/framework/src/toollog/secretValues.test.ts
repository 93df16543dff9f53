/**
 * Values known to be secrets (a mirrored server's configured credentials): replaced wherever they
 * turn up while remembered, if their name is a secret's.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Redactor } from './redact.ts';
import { rememberSecretValues } from './secretValues.ts';

const r = Redactor.default;

test('remembered secret values: under a secret name only, bare and in JSON, until forgotten', () => {
  const forget = rememberSecretValues({
    SERVICE_KEY: 'k-"quoted"-value',
    AUTHORIZATION: 'Bearer plain-credential',
    NODE_ENV: 'production',
    API_TOKEN: 'short',
  });
  const text = 'k-"quoted"-value {"k":"k-\\"quoted\\"-value"} plain-credential production short';
  assert.equal(r.text(text), '[REDACTED] {"k":"[REDACTED]"} [REDACTED] production short');
  assert.equal(
    new Redactor({ redact_keys: ['^node_env$'] }).text('in production'),
    'in [REDACTED]',
  );
  forget();
  assert.equal(r.text(text), text);
});
