/**
 * DNS rebinding against `ipybox --http --host 127.0.0.2` (issue 29 item 3). 127.0.0.2 is
 * loopback, so ipybox serves it without authentication; a web page that points its own name at
 * that address would send one request and run a cell. The real ipybox refuses the page's `Host`
 * and `Origin` with 403 and says why; a client addressing 127.0.0.2 runs cells.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  type HttpIpybox,
  runCell,
  startHttpIpybox,
  tempWorkspace,
  textOf,
} from '../server/testing.ts';

/** POSTs `body` with exactly these headers (node:http, unlike fetch, lets us set Host). */
function post(
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers }, (res) => {
      let text = '';
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const JSON_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

/** One 2026-07-28 request that runs a cell: all a rebinding page needs to send. */
function modernCell(code: string) {
  return {
    headers: {
      ...JSON_HEADERS,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'execute_ipython_cell',
    },
    body: {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'execute_ipython_cell',
        arguments: { code },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 'page', version: '1' },
        },
      },
    },
  };
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'page', version: '1' },
  },
};

const REFUSED_HOST =
  /^Invalid Host: evil\.example:\d+: this server listens on loopback and answers only requests addressed to a loopback name \(localhost, 127\.0\.0\.1, \[::1\]\), so a web page cannot reach it through DNS rebinding$/;

describe('ipybox --http --host 127.0.0.2: DNS rebinding', () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  let box: HttpIpybox;
  let port: string;

  before(async () => {
    ws = await tempWorkspace();
    box = await startHttpIpybox(ws.dir, { args: ['--host', '127.0.0.2'] });
    port = new URL(box.url).port;
  });
  after(async () => {
    await box?.close();
    await ws?.remove();
  });

  test('a page on a rebound name cannot run a cell: 403 with the reason, in both eras', async () => {
    assert.equal(new URL(box.url).hostname, '127.0.0.2');
    const cell = modernCell("open('rebound.txt', 'w').write('a page ran this')");
    const rebound = await post(
      box.url,
      { ...cell.headers, host: `evil.example:${port}` },
      cell.body,
    );
    assert.equal(rebound.status, 403, rebound.text);
    assert.match(JSON.parse(rebound.text).error.message, REFUSED_HOST);
    assert.equal(existsSync(join(ws.dir, 'rebound.txt')), false, 'the cell did not run');

    const session = await post(
      box.url,
      { ...JSON_HEADERS, host: `evil.example:${port}` },
      INITIALIZE,
    );
    assert.equal(session.status, 403, session.text);
    assert.match(JSON.parse(session.text).error.message, REFUSED_HOST);

    const crossSite = await post(
      box.url,
      { ...cell.headers, host: `127.0.0.2:${port}`, origin: `http://evil.example:${port}` },
      cell.body,
    );
    assert.equal(crossSite.status, 403, crossSite.text);
    assert.match(
      JSON.parse(crossSite.text).error.message,
      /^Invalid Origin: http:\/\/evil\.example:\d+: this server listens on loopback .*so a page from another site cannot call it$/,
    );
    assert.equal(existsSync(join(ws.dir, 'rebound.txt')), false, 'the cell did not run');
  });

  test('a client addressing 127.0.0.2 runs cells', async () => {
    const client = await box.connect();
    const result = await runCell(client, '6 * 7');
    assert.equal(textOf(result), '42');
  });
});
