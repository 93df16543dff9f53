/**
 * The management API follows the toolkit's bind rule: beyond loopback it needs a token, unless
 * the caller allows an open bind on purpose. Clients connect only to 127.0.0.1; the bound address
 * is read from /proc/net/tcp.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UnauthenticatedBindError } from '@mcpbox/framework';
import { listeningAddress } from '../../../framework/src/__fixtures__/serverProcess.ts';
import { inProcessProxy } from '../proxy/__fixtures__/inProcess.ts';
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
