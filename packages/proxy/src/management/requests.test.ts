/**
 * What the management API of a real `mcp-proxy` process accepts and refuses (issue 15, items 4,
 * 12 and 14): plugin names that are paths (REST and MCP alike, nothing imported), JSON bodies
 * without `Content-Type: application/json`, state-changing requests a browser marks as coming
 * from another site (no token configured), the hint for reloading a plugin that is not loaded,
 * and `/health/ready` after an operator unloads an autoloaded plugin.
 */

import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { firstText, type ProxyProcess, startProxy } from '@mcpbox/test-utils';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { testdir, versionPlugin, writeFile } from '../proxy/__fixtures__/testdir.ts';

const JSON_TYPE = { 'content-type': 'application/json' };
const NAME_RULE = /^Invalid plugin name .*: plugin names are names such as 'echo'.*never paths/;

/** A POST exactly as given: `headers` are all the request carries besides Host and length. */
function post(
  port: number,
  path: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: { ok?: boolean; error?: string } & Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('management API requests (one proxy, no token configured)', () => {
  let dir: string;
  let proxy: ProxyProcess;
  let client: Client;
  let port: number;
  let evil: string;
  let marker: string;
  let touched: string;

  before(async () => {
    dir = testdir({
      'plugins/counter.ts': versionPlugin('v1'),
      'plugins/touch.ts': `
import { appendFileSync } from 'node:fs';
export function register(server) {
  server.proxy?.registerCommand('touch', () => { appendFileSync(process.env.TOUCHED, 'x'); return 'touched'; });
}
`,
    });
    evil = join(dir, 'elsewhere', 'evil.ts');
    marker = join(dir, 'imported');
    touched = join(dir, 'touched');
    // Importing this file is what the API must never do: it leaves a marker behind.
    writeFile(
      dir,
      'elsewhere/evil.ts',
      `import { writeFileSync } from 'node:fs';
writeFileSync(${JSON.stringify(marker)}, 'imported');
export function register() {}
`,
    );
    proxy = await startProxy(
      ['--http', '0', '--mgmt-port', '0', '-d', join(dir, 'plugins'), '-a', 'echo', 'touch'],
      { env: { HOME: dir, TOUCHED: touched } },
    );
    port = proxy.mgmtPort;
    client = new Client({ name: 'requests-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(proxy.mcpUrl!)));
  });

  after(async () => {
    await client?.close();
    await proxy?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('plugin names are never paths: REST and MCP tools, load/unload/reload alike', async () => {
    for (const plugin of ['../../etc/passwd', evil, './elsewhere/evil.ts', 'a/b', '..']) {
      for (const op of ['load', 'unload', 'reload']) {
        const answer = await post(port, `/proxy/${op}`, JSON.stringify({ plugin }), JSON_TYPE);
        assert.equal(answer.status, 400, `${op} ${plugin}`);
        assert.match(String(answer.body.error), NAME_RULE, `${op} ${plugin}`);
        const viaMcp = await client.callTool({ name: `proxy__${op}`, arguments: { plugin } });
        assert.equal(viaMcp.isError, true, `proxy__${op} ${plugin}`);
        assert.match(firstText(viaMcp), /^Error: Invalid plugin name .*never paths/);
      }
    }
    assert.equal(existsSync(marker), false, 'a path given as a plugin name was imported');
    // Names in npm's forms pass the rule (and then are simply not found).
    for (const plugin of ['@scope/not-installed', 'not.installed-v2']) {
      const answer = await post(port, '/proxy/load', JSON.stringify({ plugin }), JSON_TYPE);
      assert.equal(answer.status, 400);
      assert.match(String(answer.body.error), new RegExp(`^Plugin '${plugin}' not found`));
    }
  });

  test('a JSON body needs no Content-Type: application/json; a form says what is expected', async () => {
    const types: Array<Record<string, string>> = [
      {},
      { 'content-type': 'text/plain' },
      // What `curl -d '{"plugin": …}'` sends.
      { 'content-type': 'application/x-www-form-urlencoded' },
    ];
    for (const headers of types) {
      const load = await post(port, '/proxy/load', '{"plugin":"counter"}', headers);
      assert.equal(load.status, 200, JSON.stringify({ headers, body: load.body }));
      assert.deepEqual(load.body.tools, ['version']);
      const unload = await post(port, '/proxy/unload', '{"plugin":"counter"}', headers);
      assert.equal(unload.status, 200);
    }
    const form = await post(port, '/proxy/load', 'plugin=counter', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    assert.equal(form.status, 400);
    assert.match(String(form.body.error), /^expected a JSON body, e\.g\. \{"plugin": "echo"\}/);
  });

  test("reloading a plugin that is not loaded says how to load it, in each entry point's terms", async () => {
    const reload = await post(port, '/proxy/reload', '{"plugin":"counter"}', JSON_TYPE);
    assert.equal(
      reload.body.error,
      "Plugin 'counter' not loaded — load it with mcp-proxy load counter",
    );
    const viaMcp = await client.callTool({
      name: 'proxy__reload',
      arguments: { plugin: 'counter' },
    });
    assert.equal(
      firstText(viaMcp),
      "Error: Plugin 'counter' not loaded — load it with proxy__load(plugin='counter')",
    );
  });

  test('a web page of another origin cannot change anything, though no token is configured', async () => {
    const own = `http://127.0.0.1:${port}`;
    const refused: Array<Record<string, string>> = [
      { origin: 'http://evil.example' },
      { origin: 'null' },
      { origin: `http://127.0.0.1:${port + 1}` },
      { origin: `https://localhost:${port}` },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { origin: own, 'sec-fetch-site': 'cross-site' },
    ];
    for (const headers of refused) {
      const answer = await post(port, '/proxy/command/touch', '', headers);
      assert.equal(answer.status, 403, JSON.stringify(headers));
      // Another site's Origin is refused by the listeners' shared guard, the rest by origin.ts.
      assert.match(String(answer.body.error), /^(cross-site request refused|Invalid Origin: )/);
      const load = await post(port, '/proxy/load', '{"plugin":"counter"}', headers);
      assert.equal(load.status, 403, JSON.stringify(headers));
    }
    assert.equal(existsSync(touched), false, 'a cross-site request ran the command');
    // A read carrying another site's Origin is refused as well (the guard every listener shares);
    // the API's own origin, same-origin fetches, and requests without those headers (curl,
    // mcp-proxy load) are not.
    const status = await fetch(`${own}/proxy/status`, {
      headers: { origin: 'http://evil.example' },
    });
    assert.equal(status.status, 403);
    assert.match(((await status.json()) as { error: string }).error, /^Invalid Origin: /);
    const allowed: Array<Record<string, string>> = [
      {},
      { origin: own },
      { origin: `http://localhost:${port}` },
      { 'sec-fetch-site': 'same-origin' },
      { 'sec-fetch-site': 'none' },
    ];
    for (const headers of allowed) {
      const answer = await post(port, '/proxy/command/touch', '', headers);
      assert.equal(answer.status, 200, JSON.stringify(headers));
    }
    assert.equal(readFileSync(touched, 'utf8'), 'xxxxx');
  });

  test('an operator unloading an autoloaded plugin leaves the server ready', async () => {
    const health = `${proxy.healthUrl}/health/ready`;
    assert.equal((await fetch(health)).status, 200);
    assert.equal((await post(port, '/proxy/unload', '{"plugin":"echo"}', JSON_TYPE)).status, 200);
    const ready = await fetch(health);
    assert.deepEqual([ready.status, await ready.json()], [200, { ready: true }]);
    // And it serves: MCP calls and the other autoloaded plugin's command still work.
    const status = await client.callTool({ name: 'proxy__status', arguments: {} });
    assert.equal(status.isError, undefined);
    assert.equal((await post(port, '/proxy/command/touch', '')).status, 200);
  });
});
