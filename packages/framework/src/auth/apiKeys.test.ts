/**
 * API keys as configured and matched: bad entries are refused naming what to fix (never echoing
 * what was written where the digest belongs), a key matches as the principal `key:<name>` with
 * its groups, claims and scopes, and keys let the endpoint bind beyond loopback.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { ConfigError } from '../errors.ts';
import { recordingLogger } from '../gate/testing.ts';
import { createSecurity } from '../security.ts';
import { ApiKeys, newApiKey, parseApiKeys } from './apiKeys.ts';
import { principalFromAuth } from './principal.ts';

const digest = (key: string) => createHash('sha256').update(key).digest('hex');

const issues = (written: unknown): readonly string[] => {
  try {
    parseApiKeys(written);
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error.issues;
  }
  assert.fail('no ConfigError');
};

test('bad api_keys entries are refused naming the entry and the field; a pasted key is never echoed', () => {
  const { key } = newApiKey();
  assert.deepEqual(issues({ name: 'x' }), [
    'api_keys: expected a list of API keys (name, sha256, groups, claims, scopes)',
  ]);
  assert.deepEqual(
    issues([
      { name: 'ci bot', sha256: digest('a') },
      { name: 'ci', sha256: key },
      { name: 'ci', key, sha256: digest('b') },
      { name: 'ok', sha256: digest('c'), groups: 'ci' },
    ]),
    [
      'api_keys[0].name: expected a name of letters, digits, _ . @ - (at most 64)',
      `api_keys[1].sha256: expected the key’s SHA-256 as 64 hex digits (printf %s "$KEY" | sha256sum), got ${key.length} characters`,
      'api_keys[2]: unknown key: expected name, sha256, groups, claims, scopes (the key itself never goes in the configuration, only its sha256)',
      'api_keys[3].groups: expected a list of names',
    ],
  );
  assert.deepEqual(
    issues([
      { name: 'a', sha256: digest('same') },
      { name: 'a', sha256: digest('other') },
      { name: 'b', sha256: digest('same').toUpperCase() },
    ]),
    ['api_keys: two keys are named "a"', 'api_keys: a and b have one sha256'],
  );
  assert.deepEqual(parseApiKeys(undefined), []);
});

test('a key matches as key:<name> with its groups, claims and scopes; anything else does not', () => {
  const ci = newApiKey();
  assert.match(ci.key, /^mcpbox_[\w-]{43}$/);
  assert.equal(ci.sha256, digest(ci.key));
  const keys = new ApiKeys(
    parseApiKeys([
      { name: 'other', sha256: digest('other-key') },
      {
        name: 'ci-bot',
        sha256: ci.sha256,
        groups: ['ci'],
        claims: { tenant: 'acme', groups: ['ignored'] },
        scopes: ['tools'],
      },
    ]),
  );
  const auth = keys.match(ci.key);
  assert.ok(auth);
  assert.equal(auth.token, '', 'the key is not carried on');
  assert.equal(keys.match(ci.key), auth, 'one authentication per key');
  assert.deepEqual(principalFromAuth(auth), {
    id: 'key:ci-bot',
    kind: 'api_key',
    subject: 'ci-bot',
    scopes: ['tools'],
    groups: ['ci'],
    claims: { tenant: 'acme', groups: ['ci'] },
  });
  assert.equal(principalFromAuth(keys.match('other-key'))?.id, 'key:other');
  assert.equal(keys.match(`${ci.key} `), undefined);
  assert.equal(keys.match(''), undefined);
});

test('API keys protect an endpoint beyond loopback: no allow_unauthenticated needed; without them the refusal names them', () => {
  const config = {
    transport: 'http',
    host: '0.0.0.0',
    oauth_enabled: false,
    oauth_server_url: undefined,
    oauth_public_url: undefined,
    oauth_cache_ttl: 0,
    oauth_required_scopes: [],
  };
  const logger = recordingLogger();
  const keyed = createSecurity(
    { ...config, api_keys: [{ name: 'ci-bot', sha256: newApiKey().sha256 }] },
    { logger },
  );
  assert.equal(keyed.httpOptions.httpMiddleware?.length, 1);
  assert.deepEqual(logger.lines, ['info API keys: 1 service account (key:ci-bot) ']);
  assert.throws(() => createSecurity(config, { logger }), /for OAuth \(or api_keys\), or serve/);
  assert.throws(
    () =>
      createSecurity(
        { ...config, config_file: '/etc/mcp.yaml', api_keys: [{ name: 'x' }] },
        { logger },
      ),
    (error: unknown) =>
      error instanceof ConfigError &&
      error.issues[0] ===
        '/etc/mcp.yaml: api_keys[0].sha256: expected the key’s SHA-256 as 64 hex digits',
  );
});
