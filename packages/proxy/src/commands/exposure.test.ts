/**
 * Authentication defaults that fail closed, through the real `mcp-factory` and `mcp-proxy` bins:
 * a bind beyond loopback without authentication is refused unless `--allow-unauthenticated`,
 * a loopback start says nothing about authentication, OAuth switched on with a URL missing
 * fails at start, API keys protect a bind beyond loopback as OAuth does, and the health port
 * stays on loopback whatever `--host` says. Clients connect only to 127.0.0.1; which address a
 * port is bound to is read from /proc/net/tcp.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, type TestContext, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort, listeningAddress, removeAtExit, runServerBin } from '@mcpbox/test-utils';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const FACTORY_BIN = fileURLToPath(new URL('../../bin/mcp-factory.js', import.meta.url));
const PROXY_BIN = fileURLToPath(new URL('../../bin/mcp-proxy.js', import.meta.url));

/** How each bin is started and how its start-up lines name the MCP and health URLs. */
const BINS = [
  {
    name: 'mcp-factory',
    bin: FACTORY_BIN,
    args: async () => ['-p', 'echo'],
    ready: /MCP endpoint:\s+(\S+)\nHealth:\s+(\S+)\/health/,
  },
  {
    name: 'mcp-proxy',
    bin: PROXY_BIN,
    args: async () => ['serve', '--mgmt-port', String(await freePort()), '-a', 'echo'],
    ready: / at (http:\/\/\S+\/mcp);.*; health (http:\/\/\S+)\/health/,
  },
];

const REFUSAL =
  /^Error: refusing to serve the http endpoint on 0\.0\.0\.0 without authentication: other machines can reach that address\. Bind to loopback \(--host 127\.0\.0\.1, or host: 127\.0\.0\.1\), set oauth_server_url and oauth_public_url for OAuth \(or api_keys\), or serve it open on purpose with --allow-unauthenticated \(or allow_unauthenticated: true\)\.$/m;

/** A scratch HOME (mcp-proxy writes its tool-call log under it) and config folder. */
function scratch(t: TestContext, files: Record<string, string> = {}): string {
  const dir = removeAtExit(mkdtempSync(join(tmpdir(), 'mcpbox-exposure-')));
  // Registered before the server's own cleanup, so it may run while the server still writes its
  // tool-call log under HOME: retry on ENOTEMPTY instead of failing the test.
  t.after(() => rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 }));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const portOf = (url: string) => Number(new URL(url).port);

for (const { name, bin, args, ready } of BINS) {
  describe(name, () => {
    test('--host 0.0.0.0 without authentication: refused at start, saying what to do', async (t) => {
      const home = scratch(t);
      const run = await runServerBin(
        t,
        bin,
        [...(await args()), '--http', '0', '--host', '0.0.0.0'],
        ready,
        { env: { HOME: home } },
      );
      assert.equal(run.match, undefined, run.stderr());
      assert.equal(run.exitCode, 1);
      assert.match(run.stderr(), REFUSAL);
      assert.doesNotMatch(run.stderr(), /\n\s+at /, 'no stack trace');
      assert.equal(run.stdout(), '');
    });

    test('--allow-unauthenticated serves on 0.0.0.0, the health port stays on loopback', async (t) => {
      const home = scratch(t);
      const run = await runServerBin(
        t,
        bin,
        [...(await args()), '--http', '0', '--host', '0.0.0.0', '--allow-unauthenticated'],
        ready,
        { env: { HOME: home } },
      );
      assert.ok(run.match, run.stderr());
      const [, mcpUrl, healthUrl] = run.match;
      assert.equal(new URL(mcpUrl).hostname, '0.0.0.0');
      assert.equal(listeningAddress(portOf(mcpUrl)), '0.0.0.0');
      assert.equal(new URL(healthUrl).hostname, '127.0.0.1');
      assert.equal(listeningAddress(portOf(healthUrl)), '127.0.0.1');
      assert.match(run.stderr(), /WARN .*the http endpoint on 0\.0\.0\.0 has no authentication/);

      const client = new Client({ name: 'exposure-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${portOf(mcpUrl)}/mcp`)),
      );
      t.after(() => client.close());
      const result = await client.callTool({ name: 'echo', arguments: { message: 'open' } });
      assert.deepEqual(result.content, [{ type: 'text', text: 'open' }]);
      assert.equal((await fetch(`${healthUrl}/health`)).status, 200);
    });

    test('api_keys serve 0.0.0.0 without --allow-unauthenticated: no warning, a key is needed', async (t) => {
      const key = 'mcpbox_exposure-test-key';
      const sha256 = createHash('sha256').update(key).digest('hex');
      const dir = scratch(t, {
        'keys.yaml': `api_keys:\n  - name: ci-bot\n    sha256: ${sha256}\n`,
      });
      const run = await runServerBin(
        t,
        bin,
        [...(await args()), '--http', '0', '--host', '0.0.0.0', '-c', join(dir, 'keys.yaml')],
        ready,
        { env: { HOME: dir } },
      );
      assert.ok(run.match, run.stderr());
      assert.equal(listeningAddress(portOf(run.match[1])), '0.0.0.0');
      assert.doesNotMatch(run.stderr(), /WARN|no authentication/);
      const url = `http://127.0.0.1:${portOf(run.match[1])}/mcp`;
      const open = new Client({ name: 'exposure-test', version: '1.0.0' });
      await assert.rejects(open.connect(new StreamableHTTPClientTransport(new URL(url))), {
        status: 401,
      });
      const client = new Client({ name: 'exposure-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { authorization: `Bearer ${key}` } },
        }),
      );
      t.after(() => client.close());
      const result = await client.callTool({ name: 'echo', arguments: { message: 'keyed' } });
      assert.deepEqual(result.content, [{ type: 'text', text: 'keyed' }]);
    });

    test('a plain loopback --http start says nothing about authentication', async (t) => {
      const home = scratch(t);
      const run = await runServerBin(t, bin, [...(await args()), '--http', '0'], ready, {
        env: { HOME: home },
      });
      assert.ok(run.match, run.stderr());
      assert.equal(new URL(run.match[1]).hostname, '127.0.0.1');
      assert.doesNotMatch(run.stderr(), /authenticat|oauth/i);
    });

    test('OAuth switched on with the introspection URL missing: refused at start', async (t) => {
      const dir = scratch(t, {
        'auth.yaml': 'oauth_enabled: true\noauth_public_url: http://127.0.0.1:9/mcp\n',
      });
      const run = await runServerBin(
        t,
        bin,
        [...(await args()), '--http', '0', '-c', join(dir, 'auth.yaml')],
        ready,
        { env: { HOME: dir } },
      );
      assert.equal(run.match, undefined, run.stderr());
      assert.equal(run.exitCode, 1);
      assert.match(
        run.stderr(),
        /^Error: invalid configuration: .*auth\.yaml: oauth_server_url: not set, but OAuth is on: set both oauth_server_url and oauth_public_url, or oauth_enabled: false/m,
      );
    });
  });
}
