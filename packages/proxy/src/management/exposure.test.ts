/**
 * The management API follows the toolkit's bind rule: beyond loopback it needs a token, unless
 * the caller allows an open bind on purpose. Clients connect only to 127.0.0.1; the bound address
 * is read from /proc/net/tcp.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { test } from 'node:test';
import { UnauthenticatedBindError } from '@mcpbox/framework';
import { listeningAddress } from '@mcpbox/test-utils';
import { inProcessProxy } from '../__fixtures__/inProcess.ts';
import { startManagementServer } from './server.ts';

test('0.0.0.0 without a token is refused; with a token, or allowed, it serves', async (t) => {
  const proxy = await inProcessProxy({});
  t.after(() => proxy.close());
  const manager = proxy.manager;

  await assert.rejects(
    startManagementServer({ manager, port: 0, host: '0.0.0.0' }),
    (e: unknown) =>
      e instanceof UnauthenticatedBindError &&
      /^refusing to serve the management API on 0\.0\.0\.0 without authentication: .*set a token \(--mgmt-token, management_token\)/.test(
        e.message,
      ),
  );
  await assert.rejects(startManagementServer({ manager, port: 0, host: '0.0.0.0', token: '' }), {
    code: 'UNAUTHENTICATED_BIND',
  });

  for (const options of [{ token: 's3cret' }, { allowUnauthenticated: true }]) {
    const api = await startManagementServer({ manager, port: 0, host: '0.0.0.0', ...options });
    t.after(() => api.close());
    assert.equal(listeningAddress(api.port), '0.0.0.0');
    const headers = options.token ? { authorization: `Bearer ${options.token}` } : undefined;
    const response = await fetch(`http://127.0.0.1:${api.port}/proxy/status`, { headers });
    assert.equal(response.status, 200);
  }

  const local = await startManagementServer({ manager, port: 0 });
  t.after(() => local.close());
  assert.equal(listeningAddress(local.port), '127.0.0.1');
});

test('on 127.0.0.2 (loopback): served without a token to clients addressing it; a rebound Host is refused', async (t) => {
  const proxy = await inProcessProxy({});
  t.after(() => proxy.close());
  const api = await startManagementServer({ manager: proxy.manager, port: 0, host: '127.0.0.2' });
  t.after(() => api.close());
  assert.equal(listeningAddress(api.port), '127.0.0.2');
  const get = (host: string) =>
    new Promise<{ status: number; body: { ok?: boolean; error?: string } }>((resolve, reject) => {
      request(`${api.url}/proxy/status`, { headers: { host } }, (res) => {
        let text = '';
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      })
        .on('error', reject)
        .end();
    });
  assert.equal((await get(`127.0.0.2:${api.port}`)).status, 200);
  const rebound = await get(`evil.example:${api.port}`);
  assert.equal(rebound.status, 403);
  assert.equal(rebound.body.ok, false);
  assert.match(
    rebound.body.error ?? '',
    /^Invalid Host: evil\.example:\d+: this server listens on loopback and answers only requests addressed to a loopback name/,
  );
});
