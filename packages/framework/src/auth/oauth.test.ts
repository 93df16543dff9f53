import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { startIntrospectionServer, type TestAuthorizationServer } from '@mcpbox/test-utils';
import express from 'express';
import { ConfigError } from '../errors.ts';
import { recordingLogger } from '../gate/testing.ts';
import { UnauthenticatedBindError } from './exposure.ts';
import { OAUTH_CHANNEL } from './introspection.ts';
import { CONFIG_SETTING_NAMES, createOAuth, type OAuthConfig } from './oauth.ts';

type After = { after: (fn: () => Promise<void> | void) => void };

const base: OAuthConfig = {
  transport: 'http',
  oauth_enabled: true,
  oauth_server_url: undefined,
  oauth_public_url: 'https://mcp.example.com/mcp',
  oauth_cache_ttl: 28800,
  oauth_required_scopes: [],
};

const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * A real introspection server, and an Express app whose `/mcp`
 * route sits behind the OAuth middleware and answers with the verified client id.
 */
async function setup(t: After, overrides: Partial<OAuthConfig> = {}, timeoutMs = 10_000) {
  const as = await startIntrospectionServer();
  t.after(() => as.close());
  let offsetMs = 0;
  const logger = recordingLogger();
  const oauth = createOAuth({ ...base, oauth_server_url: as.url, ...overrides }, logger, {
    clock: () => Date.now() + offsetMs,
    timeoutMs,
  });
  assert.ok(oauth);
  const app = express();
  app.use(express.json());
  oauth.configureApp(app);
  app.post(
    '/mcp',
    ...oauth.middleware,
    (
      req: { auth?: { clientId: string; scopes: string[] } },
      res: { json: (v: unknown) => void },
    ) => {
      res.json({ client: req.auth?.clientId, scopes: req.auth?.scopes });
    },
  );
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  t.after(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const call = (token?: string) =>
    fetch(`${origin}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: '{}',
    });
  return {
    as,
    oauth,
    logger,
    origin,
    call,
    advance: (seconds: number) => {
      offsetMs += seconds * 1000;
    },
  };
}

/** The rejection reasons published on the OAuth channel while `run` runs. */
async function rejectionsDuring(run: () => Promise<void>): Promise<string[]> {
  const reasons: string[] = [];
  const listener = (m: unknown) => reasons.push((m as { reason: string }).reason);
  subscribe(OAUTH_CHANNEL, listener);
  try {
    await run();
  } finally {
    unsubscribe(OAUTH_CHANNEL, listener);
  }
  return reasons;
}

function activeToken(
  as: TestAuthorizationServer,
  token: string,
  extra: Record<string, unknown> = {},
) {
  as.tokens.set(token, {
    active: true,
    client_id: 'client-1',
    scope: 'user read',
    exp: nowSeconds() + 3600,
    ...extra,
  });
}

describe('OAuth bearer check against a real introspection server', () => {
  test('no token: 401 with WWW-Authenticate naming the resource metadata', async (t) => {
    const { call } = await setup(t);
    const res = await call();
    assert.equal(res.status, 401);
    assert.equal(
      res.headers.get('www-authenticate'),
      'Bearer error="invalid_token", error_description="Missing Authorization header", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"',
    );
    assert.deepEqual(await res.json(), {
      error: 'invalid_token',
      error_description: 'Missing Authorization header',
    });
  });

  test('a valid token passes, is introspected once and then served from the cache', async (t) => {
    const { as, call } = await setup(t);
    activeToken(as, 'good-token');
    const first = await call('good-token');
    assert.equal(first.status, 200);
    assert.deepEqual(await first.json(), { client: 'client-1', scopes: ['user', 'read'] });
    assert.equal((await call('good-token')).status, 200);
    assert.equal(as.requests.length, 1);
    assert.equal(as.requests[0].get('token'), 'good-token');
    assert.equal(as.requests[0].get('token_type_hint'), 'access_token');
  });

  test('garbage and inactive tokens get 401', async (t) => {
    const { as, call } = await setup(t);
    as.tokens.set('revoked', { active: false });
    for (const token of ['revoked', 'garbage-garbage', '%%%']) {
      const res = await call(token);
      assert.equal(res.status, 401, token);
      assert.match(
        res.headers.get('www-authenticate') ?? '',
        /error="invalid_token", error_description="Token is not active"/,
      );
    }
  });

  test('a cached token is refused once its own exp passes, although the cache TTL has not', async (t) => {
    const { as, call, advance } = await setup(t, { oauth_cache_ttl: 28800 });
    // A lax server that keeps saying "active": the verifier must still honour exp.
    activeToken(as, 'short-lived', { exp: nowSeconds() + 100 });
    assert.equal((await call('short-lived')).status, 200);
    advance(50);
    assert.equal((await call('short-lived')).status, 200);
    assert.equal(as.requests.length, 1, 'within exp: from the cache');
    advance(60);
    const res = await call('short-lived');
    assert.equal(res.status, 401);
    assert.match(
      res.headers.get('www-authenticate') ?? '',
      /error_description="Token has expired"/,
    );
    assert.equal(as.requests.length, 2, 'the expired cache entry was not used');
  });

  test('the cache TTL bounds reuse; TTL 0 introspects every request', async (t) => {
    const ttl = await setup(t, { oauth_cache_ttl: 60 });
    activeToken(ttl.as, 'tok');
    await ttl.call('tok');
    ttl.advance(61);
    await ttl.call('tok');
    assert.equal(ttl.as.requests.length, 2);

    const none = await setup(t, { oauth_cache_ttl: 0 });
    activeToken(none.as, 'tok');
    for (let i = 0; i < 3; i++) assert.equal((await none.call('tok')).status, 200);
    assert.equal(none.as.requests.length, 3);
  });

  test('missing scopes: 403 insufficient_scope naming the required scopes', async (t) => {
    const { as, call } = await setup(t, { oauth_required_scopes: ['user', 'admin'] });
    activeToken(as, 'user-only', { scope: 'user' });
    const res = await call('user-only');
    assert.equal(res.status, 403);
    assert.match(
      res.headers.get('www-authenticate') ?? '',
      /error="insufficient_scope".*scope="user admin"/,
    );
    activeToken(as, 'admin', { scope: 'admin user other' });
    assert.equal((await call('admin')).status, 200);
  });

  test('an introspection server that fails, answers non-JSON, is slow or down: 401, one warning, recovery', async (t) => {
    const { as, call, logger } = await setup(t, {}, 300);
    activeToken(as, 'good');
    for (const mode of ['error-500', 'not-json', 'slow'] as const) {
      as.mode = mode;
      const res = await call('good');
      assert.equal(res.status, 401, mode);
      assert.match(res.headers.get('www-authenticate') ?? '', /Token could not be verified/);
    }
    const warnings = logger.lines.filter((l) => l.startsWith('warn'));
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(
      warnings[0],
      /token introspection at http:\/\/127\.0\.0\.1:\d+\/introspect failed \(answered HTTP 500\)/,
    );
    as.mode = 'ok';
    assert.equal((await call('good')).status, 200, 'failures were not cached');
    assert.ok(logger.lines.some((l) => l.includes('token introspection works again')));
    await as.close();
    assert.equal((await call('other')).status, 401, 'down');
    assert.ok(!logger.lines.join('\n').includes('good'), 'tokens never logged');
  });

  test('a token naming nobody, or naming someone with a non-string, gets 401 saying so; one warning', async (t) => {
    const { as, call, logger } = await setup(t);
    const exp = nowSeconds() + 3600;
    as.tokens.set('nobody', { active: true, scope: 'user', exp });
    as.tokens.set('empty', { active: true, sub: '', username: '', client_id: '', exp });
    as.tokens.set('numeric-sub', { active: true, sub: 42, client_id: 'app', exp });
    as.tokens.set('list-user', { active: true, username: ['alice'], exp });
    as.tokens.set('username-only', { active: true, username: 'alice', exp });
    const reasons = await rejectionsDuring(async () => {
      for (const token of ['nobody', 'empty', 'nobody']) {
        const res = await call(token);
        assert.equal(res.status, 401, token);
        assert.match(
          res.headers.get('www-authenticate') ?? '',
          /error="invalid_token", error_description="Token names no sub, username or client_id"/,
        );
      }
      for (const [token, claim] of [
        ['numeric-sub', 'sub'],
        ['list-user', 'username'],
      ]) {
        const res = await call(token);
        assert.equal(res.status, 401, token);
        assert.match(
          res.headers.get('www-authenticate') ?? '',
          new RegExp(`error_description="Token's ${claim} is not a string"`),
        );
      }
    });
    assert.deepEqual(reasons, [
      'no_principal',
      'no_principal',
      'no_principal',
      'invalid_claims',
      'invalid_claims',
    ]);
    const warnings = logger.lines.filter((l) => l.startsWith('warn'));
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0], /answered for a token with no sub, username or client_id/);
    // A username alone names a caller: RFC 7662 makes every identifying field optional.
    const alice = await call('username-only');
    assert.equal(alice.status, 200);
    assert.deepEqual(await alice.json(), { client: '', scopes: [] });
  });

  test('exp, nbf and iat must be numbers, and a token whose nbf is ahead is not valid yet', async (t) => {
    const { as, call, advance } = await setup(t);
    const now = nowSeconds();
    as.tokens.set('exp-never', { active: true, sub: 'a', exp: 'never' });
    as.tokens.set('nbf-text', { active: true, sub: 'a', exp: now + 3600, nbf: 'soon' });
    as.tokens.set('iat-text', { active: true, sub: 'a', exp: now + 3600, iat: '2020-01-01' });
    as.tokens.set('later', { active: true, sub: 'a', exp: now + 3600, nbf: now + 600 });
    as.tokens.set('fine', { active: true, sub: 'a', exp: now + 3600, nbf: now - 5, iat: now - 5 });
    const reasons = await rejectionsDuring(async () => {
      for (const [token, claim] of [
        ['exp-never', 'exp'],
        ['nbf-text', 'nbf'],
        ['iat-text', 'iat'],
      ]) {
        const res = await call(token);
        assert.equal(res.status, 401, token);
        assert.match(
          res.headers.get('www-authenticate') ?? '',
          new RegExp(`error_description="Token's ${claim} is not a number"`),
        );
      }
      const early = await call('later');
      assert.equal(early.status, 401);
      assert.match(
        early.headers.get('www-authenticate') ?? '',
        /error_description="Token is not valid yet \(its nbf is ahead\)"/,
      );
    });
    assert.deepEqual(reasons, [
      'invalid_claims',
      'invalid_claims',
      'invalid_claims',
      'not_yet_valid',
    ]);
    assert.equal((await call('fine')).status, 200);
    // Refused, not cached: once its nbf has passed the same token is let in.
    advance(601);
    assert.equal((await call('later')).status, 200);
  });

  test('serves RFC 9728 metadata at the bare and the path-specific URL', async (t) => {
    const { origin, as } = await setup(t, { oauth_required_scopes: ['user'] });
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
    ]) {
      const res = await fetch(`${origin}${path}`);
      assert.equal(res.status, 200, path);
      assert.deepEqual(await res.json(), {
        resource: 'https://mcp.example.com/mcp',
        authorization_servers: [as.url],
        bearer_methods_supported: ['header'],
        scopes_supported: ['user'],
      });
    }
  });

  test('publishes each refusal with its reason', async (t) => {
    const { as, call } = await setup(t, { oauth_required_scopes: ['admin'] });
    activeToken(as, 'user-only');
    const reasons: string[] = [];
    const listener = (m: unknown) => reasons.push((m as { reason: string }).reason);
    subscribe(OAUTH_CHANNEL, listener);
    try {
      await call();
      await call('nope');
      await call('user-only');
    } finally {
      unsubscribe(OAUTH_CHANNEL, listener);
    }
    assert.deepEqual(reasons, ['missing_token', 'inactive', 'insufficient_scope']);
  });
});

describe('OAuth configuration matrix', () => {
  test('stdio, and OAuth off on a loopback bind, are silent and unauthenticated', () => {
    const logger = recordingLogger();
    assert.equal(
      createOAuth(
        {
          ...base,
          transport: 'stdio',
          host: '0.0.0.0',
          oauth_server_url: 'https://as.example.com',
        },
        logger,
      ),
      undefined,
    );
    for (const host of [undefined, '127.0.0.1', 'localhost', '::1']) {
      assert.equal(createOAuth({ ...base, host, oauth_enabled: false }, logger), undefined);
    }
    assert.deepEqual(logger.lines, []);
  });

  test('OAuth on with a URL missing is a start-up error naming it, not an open endpoint', () => {
    const logger = recordingLogger();
    assert.throws(
      () => createOAuth({ ...base, oauth_public_url: undefined }, logger),
      (e: unknown) =>
        e instanceof ConfigError &&
        e.issues.length === 1 &&
        /^oauth_server_url and oauth_public_url: not set, but OAuth is on: set both .*oauth_enabled: false/.test(
          e.issues[0],
        ),
    );
    assert.throws(
      () =>
        createOAuth(
          { ...base, oauth_server_url: 'https://as.example.com', oauth_public_url: undefined },
          logger,
          {
            settingNames: {
              ...CONFIG_SETTING_NAMES,
              publicUrl: '--public',
              disableOAuth: undefined,
            },
          },
        ),
      (e: unknown) =>
        e instanceof ConfigError &&
        e.issues[0] ===
          '--public: not set, but OAuth is on: set both oauth_server_url and --public',
    );
    assert.deepEqual(logger.lines, []);
  });

  test('OAuth off beyond loopback: refused, unless allowed (then one warning)', () => {
    const logger = recordingLogger();
    for (const host of ['0.0.0.0', '::', '192.168.1.5', 'example.com']) {
      assert.throws(
        () => createOAuth({ ...base, host, oauth_enabled: false }, logger),
        (e: unknown) =>
          e instanceof UnauthenticatedBindError &&
          e.code === 'UNAUTHENTICATED_BIND' &&
          e.message.startsWith(
            `refusing to serve the http endpoint on ${host} without authentication`,
          ) &&
          e.message.includes('--allow-unauthenticated'),
      );
    }
    assert.deepEqual(logger.lines, []);
    const open = { ...base, host: '0.0.0.0', oauth_enabled: false, allow_unauthenticated: true };
    assert.equal(createOAuth(open, logger), undefined);
    assert.equal(logger.lines.length, 1);
    assert.match(logger.lines[0], /^warn the http endpoint on 0\.0\.0\.0 has no authentication/);
  });

  test('OAuth on beyond loopback needs no permission', () => {
    const oauth = createOAuth(
      { ...base, host: '0.0.0.0', oauth_server_url: 'https://as.example.com' },
      recordingLogger(),
    );
    assert.ok(oauth);
  });

  test('refuses plain http to another host and malformed URLs', () => {
    const logger = recordingLogger();
    assert.throws(
      () => createOAuth({ ...base, oauth_server_url: 'http://auth.example.com' }, logger),
      (e: unknown) =>
        e instanceof ConfigError && /oauth_server_url: must use https:\/\//.test(e.message),
    );
    assert.throws(
      () => createOAuth({ ...base, oauth_server_url: 'https://u:p@auth.example.com' }, logger),
      (e: unknown) => e instanceof ConfigError && !e.message.includes('u:p'),
    );
    assert.throws(
      () =>
        createOAuth(
          { ...base, oauth_server_url: 'https://as.example.com', oauth_public_url: 'nope' },
          logger,
        ),
      /oauth_public_url: expected an http\(s\) URL/,
    );
    assert.ok(createOAuth({ ...base, oauth_server_url: 'http://localhost:9000' }, logger));
    assert.ok(
      createOAuth({ ...base, oauth_server_url: 'https://as.example.com/realms/x/' }, logger),
    );
  });
});
