/**
 * The generated runtime keeps one connection to the tool server per thread (connecting for every
 * call cost more than a call), and must stay correct with it: calls reuse the connection, threads
 * do not share one, and a connection the server closed meanwhile (a restart, the idle timeout) is
 * replaced without the call failing. A real `/usr/bin/python3` against a real `ToolServer`.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { SYSTEM_PYTHON } from '../__fixtures__/toolserver-python.ts';
import { generateMcpSources } from '../mcptools/generate.ts';
import type { ToolConnections } from './runToolCall.ts';
import { ToolServer } from './toolServer.ts';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** One upstream, `fake`, whose `ping` answers `pong <n>` without any process behind it. */
function fakeConnections(): ToolConnections {
  let calls = 0;
  const connection = {
    callTool: async (): Promise<CallToolResult> => ({
      content: [{ type: 'text', text: `pong ${++calls}` }],
    }),
    listTools: async () => [{ name: 'ping', inputSchema: { type: 'object' as const } }],
  };
  return {
    has: (n) => n === 'fake',
    names: () => ['fake'],
    get: () => connection,
    closeAll: async () => {},
  };
}

/** A Python process that runs each line of code it is sent and answers with one JSON line. */
function pythonRepl(root: string, env: Record<string, string>) {
  const child = spawn(
    SYSTEM_PYTHON,
    [
      '-I',
      '-u',
      '-c',
      `import sys, json
sys.path.insert(0, ${JSON.stringify(root)})
from mcptools import _runtime
for line in sys.stdin:
    try:
        out = {'ok': eval(line)}
    except Exception as e:
        out = {'error': type(e).__name__, 'message': str(e)}
    print(json.dumps(out), flush=True)`,
    ],
    { env: { PATH: '/usr/bin:/bin', ...env }, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return {
    async eval(expression: string): Promise<{ ok?: unknown; error?: string; message?: string }> {
      child.stdin.write(`${expression}\n`);
      const { value } = await lines.next();
      return JSON.parse(value as string);
    },
    close: () => {
      child.stdin.end();
      return new Promise<void>((resolve) => child.once('exit', () => resolve()));
    },
  };
}

test('calls reuse a kept-alive connection per thread, and survive the server closing it', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'toolserver-keepalive-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  const socketPath = join(root, 'tools.sock');
  const options = { connections: fakeConnections(), socketPath, tcp: false, logger: silent };
  let server = await ToolServer.start(options);
  t.after(() => server.close());
  server.approval.policy = 'auto';
  await generateMcpSources('fake', {}, root, {
    listTools: () => options.connections.get('fake').listTools(),
  });
  const python = pythonRepl(root, server.kernelEnv());
  t.after(() => python.close());

  assert.deepEqual(await python.eval("_runtime.call_tool('fake', 'ping')"), { ok: 'pong 1' });
  // Marks this thread's connection, to tell it from a new one later.
  const marked = "getattr(_runtime._local.conn, 'marked', False)";
  await python.eval("setattr(_runtime._local.conn, 'marked', True)");
  assert.deepEqual(await python.eval("_runtime.call_tool('fake', 'ping')"), { ok: 'pong 2' });
  assert.deepEqual(await python.eval(marked), { ok: true }, 'the same connection');

  // Threads each get their own connection; none of the concurrent calls fails.
  const threads = await python.eval(
    "__import__('json').dumps(sorted(__import__('concurrent.futures').futures.ThreadPoolExecutor(8).map(lambda _: _runtime.call_tool('fake', 'ping').split()[0], range(32))))",
  );
  assert.deepEqual(JSON.parse(threads.ok as string), Array(32).fill('pong'));

  // A restart closes every connection; the next call connects again instead of failing.
  await server.close();
  server = await ToolServer.start({ ...options, token: server.token });
  server.approval.policy = 'auto';
  assert.deepEqual(await python.eval("_runtime.call_tool('fake', 'ping')"), { ok: 'pong 35' });
  assert.deepEqual(await python.eval(marked), { ok: false }, 'a new connection');

  // With the server gone for good, the call fails with the runtime's own error, at once.
  await server.close();
  const gone = await python.eval("_runtime.call_tool('fake', 'ping')");
  assert.equal(gone.error, 'ToolServerUnavailable');
});

test('the runtime honours Connection: close and fails clearly on a reply it cannot read', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'toolserver-replies-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  const connections = fakeConnections();
  await generateMcpSources('fake', {}, root, {
    listTools: () => connections.get('fake').listTools(),
  });
  // A stand-in tool server that answers each request with the next of these raw replies.
  const ok = (extra: string) =>
    `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 15${extra}\r\n\r\n{"result":"ok"}`;
  const replies = [
    ok('\r\nConnection: close'),
    ok(''),
    'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{"result":"ok"}',
    'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"res',
  ];
  let accepted = 0;
  const server = createServer((socket) => {
    accepted += 1;
    let seen = '';
    socket.on('data', (data) => {
      seen += data.toString('latin1');
      const end = seen.indexOf('\r\n\r\n');
      const length = Number(/Content-Length: (\d+)/.exec(seen)?.[1]);
      if (end < 0 || seen.length < end + 4 + length) return;
      seen = '';
      const reply = replies.shift()!;
      if (reply.includes('Connection: close') || !reply.includes('Content-Length: 15')) {
        socket.end(reply);
      } else socket.write(reply);
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  const python = pythonRepl(root, { IPYBOX_TOOL_SERVER: `http://127.0.0.1:${port}` });
  t.after(() => python.close());

  assert.deepEqual(await python.eval("_runtime.call_tool('fake', 'ping')"), { ok: 'ok' });
  assert.deepEqual(await python.eval("_runtime.call_tool('fake', 'ping')"), { ok: 'ok' });
  assert.equal(accepted, 2, 'a new connection after Connection: close');
  for (const why of ['without a Content-Length', 'in the middle of the reply']) {
    const failed = await python.eval("_runtime.call_tool('fake', 'ping')");
    assert.equal(failed.error, 'ToolServerUnavailable');
    assert.match(String(failed.message), new RegExp(why));
  }
});
