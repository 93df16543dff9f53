/**
 * The tool server's HTTP surface with bad input, through real `fetch` on an ephemeral port.
 * No upstream is registered here: these requests must be answered before any would be needed.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { UpstreamPool } from '@mcpbox/framework';
import { runPython } from '../__fixtures__/toolserver-python.ts';
import { ToolServer } from './toolServer.ts';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

describe('tool server HTTP', () => {
  let server: ToolServer;
  let auth: Record<string, string>;
  before(async () => {
    server = await ToolServer.start({
      connections: new UpstreamPool({ logger: silent }),
      maxBodyBytes: 1024,
      logger: silent,
    });
    server.approval.policy = 'auto';
    auth = { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' };
  });
  after(() => server.close());

  const post = (body: string, headers = auth) =>
    fetch(`${server.url}/run`, { method: 'POST', headers, body });

  test('GET /status answers without a token', async () => {
    const response = await fetch(`${server.url}/status`);
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { status: 'ok' });
  });

  test('unknown route 404, wrong method 405, missing token 401', async () => {
    assert.equal((await fetch(`${server.url}/nope`)).status, 404);
    assert.equal((await fetch(`${server.url}/run`)).status, 405);
    const response = await post('{}', { 'Content-Type': 'application/json' });
    assert.equal(response.status, 401);
    assert.deepEqual(await response.json(), { error: 'missing or wrong tool server token' });
  });

  test('malformed bodies get 400 with the field at fault', async () => {
    const cases: [string, string][] = [
      ['{oops', 'request body is not valid JSON'],
      ['[]', 'expected a JSON object {server_name, tool_name, tool_args}'],
      ['{"tool_name":"t"}', 'server_name: expected a non-empty string'],
      ['{"server_name":"s"}', 'tool_name: expected a non-empty string'],
      ['{"server_name":"s","tool_name":"t","tool_args":[1]}', 'tool_args: expected an object'],
      [
        '{"server_name":"s","tool_name":"t","timeout":-1}',
        'timeout: expected a positive number of seconds',
      ],
    ];
    for (const [body, error] of cases) {
      const response = await post(body);
      assert.equal(response.status, 400, body);
      assert.deepEqual(await response.json(), { error, type: 'bad_request' }, body);
    }
  });

  test('a body over the limit gets 413 and the server keeps serving', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${server.url}/run`, { method: 'POST', headers: auth }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end(
        JSON.stringify({ server_name: 's', tool_name: 't', tool_args: { x: 'y'.repeat(4096) } }),
      );
    });
    assert.equal(status, 413);
    assert.equal((await fetch(`${server.url}/status`)).status, 200);
  });

  test('an unregistered server is not_found, answered with 200 (failure is data)', async () => {
    const response = await post('{"server_name":"ghost","tool_name":"t"}');
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), {
      type: 'not_found',
      error:
        "unknown MCP server 'ghost' (registered: none); register it with the register_mcp_server tool",
    });
  });
});

/** A tool server listening only on the Unix socket `path`. */
function startOnSocket(path: string): Promise<ToolServer> {
  return ToolServer.start({
    connections: new UpstreamPool(),
    tcp: false,
    socketPath: path,
    logger: silent,
  });
}

describe('tool server on a Unix socket', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolsock-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('the socket is private to our user and removed on close; a live one is never taken', async () => {
    const path = join(dir, 'tools.sock');
    const first = await startOnSocket(path);
    assert.equal(first.address, `unix:${path}`);
    assert.equal(first.url, undefined);
    assert.equal((await stat(path)).mode & 0o777, 0o600);
    await assert.rejects(startOnSocket(path), {
      message: `another server is listening on ${path}; refusing to replace its socket`,
    });
    await first.close();
    await assert.rejects(stat(path), { code: 'ENOENT' });
  });

  test('a stale socket left by a dead process is replaced', async () => {
    const path = join(dir, 'stale.sock');
    // Python binds and exits without unlinking: the file stays, nobody listens.
    const made = await runPython(
      `import socket; s = socket.socket(socket.AF_UNIX); s.bind(${JSON.stringify(path)}); s.listen(); s.close()`,
      { root: dir },
    );
    assert.equal(made.code, 0, made.stderr);
    assert.ok((await stat(path)).isSocket());
    const server = await startOnSocket(path);
    const answer = await runPython(
      `
import http.client, socket
class C(http.client.HTTPConnection):
    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX); self.sock.connect(${JSON.stringify(path)})
c = C('localhost'); c.request('GET', '/status'); print(c.getresponse().read().decode())
`,
      { root: dir },
    );
    await server.close();
    assert.equal(answer.stdout.trim(), '{"status":"ok"}');
  });

  test('a regular file at the socket path is never replaced', async () => {
    const path = join(dir, 'important.txt');
    await writeFile(path, 'keep me');
    await assert.rejects(startOnSocket(path), {
      message: `${path} exists and is not a socket; refusing to replace it`,
    });
  });

  test('a socket path over the Unix limit fails with a clear message', async () => {
    const path = join(dir, 'x'.repeat(120));
    await assert.rejects(startOnSocket(path), /over the 107-byte limit of Unix sockets/);
  });
});
