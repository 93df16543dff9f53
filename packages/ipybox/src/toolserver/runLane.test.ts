/**
 * The tool server's lane for kernel code's `POST /run`, through raw sockets: requests split or
 * sent back to back are answered in order, a connection that asks for anything else on the way
 * is handed to node:http and served there, `Connection: close` is honoured, and whatever does
 * not fit the lane (a chunked body) is served by node:http as before.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { IDLE_MS } from './runLane.ts';
import type { ToolConnections } from './runToolCall.ts';
import { ToolServer } from './toolServer.ts';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** One upstream, `fake`, whose `echo` answers with its `message` argument after `ms`, if given. */
function fakeConnections(): ToolConnections {
  const connection = {
    callTool: async (_name: string, args: Record<string, unknown> | undefined) => {
      if (typeof args?.ms === 'number')
        await new Promise((resolve) => setTimeout(resolve, args.ms as number));
      return { content: [{ type: 'text', text: String(args?.message) }] } as CallToolResult;
    },
    listTools: async () => [{ name: 'echo', inputSchema: { type: 'object' as const } }],
  };
  return {
    has: (n) => n === 'fake',
    names: () => ['fake'],
    get: () => connection,
    closeAll: async () => {},
  };
}

interface Reply {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** Reads HTTP/1.1 replies with a Content-Length off a socket, one after the other. */
function replies(socket: Socket) {
  let buffer = Buffer.alloc(0);
  let ended = false;
  const waiting: Array<() => void> = [];
  const wake = () => {
    for (const resolve of waiting.splice(0)) resolve();
  };
  socket.on('data', (chunk) => {
    buffer = Buffer.concat([buffer, chunk]);
    wake();
  });
  socket.on('close', () => {
    ended = true;
    wake();
  });
  return {
    async next(): Promise<Reply> {
      for (;;) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end !== -1) {
          const [statusLine, ...lines] = buffer.toString('latin1', 0, end).split('\r\n');
          const headers = Object.fromEntries(
            lines.map((line) => [
              line.slice(0, line.indexOf(':')).toLowerCase(),
              line.slice(line.indexOf(':') + 1).trim(),
            ]),
          );
          const length = Number(headers['content-length']);
          if (buffer.length >= end + 4 + length) {
            const body = JSON.parse(buffer.toString('utf8', end + 4, end + 4 + length));
            buffer = buffer.subarray(end + 4 + length);
            return { status: Number(statusLine.split(' ')[1]), headers, body };
          }
        }
        if (ended) throw new Error(`connection closed; unread: ${buffer.toString()}`);
        await new Promise<void>((resolve) => waiting.push(resolve));
      }
    },
    get ended() {
      return ended;
    },
    closed: new Promise<void>((resolve) => socket.once('close', () => resolve())),
  };
}

describe('tool server lane', () => {
  let server: ToolServer;
  const sockets: Socket[] = [];
  before(async () => {
    server = await ToolServer.start({ connections: fakeConnections(), logger: silent });
    server.approval.policy = 'auto';
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    await server.close();
  });

  const open = async () => {
    const port = Number(new URL(server.url as string).port);
    const socket = connect(port, '127.0.0.1');
    sockets.push(socket);
    await new Promise((resolve) => socket.once('connect', resolve));
    return { socket, replies: replies(socket) };
  };
  const run = (message: string, extra = '', ms?: number) => {
    const body = JSON.stringify({
      server_name: 'fake',
      tool_name: 'echo',
      tool_args: { message, ms },
    });
    return (
      'POST /run HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
      `Authorization: Bearer ${server.token}\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
    );
  };

  test('back-to-back calls are answered in order; then GET /status on the same connection', async () => {
    const { socket, replies: r } = await open();
    socket.write(run('one') + run('twö'));
    const first = await r.next();
    assert.equal(first.status, 200);
    assert.deepEqual(first.body, { result: 'one' });
    assert.equal(first.headers['content-type'], 'application/json');
    assert.equal(first.headers.connection, 'keep-alive');
    assert.deepEqual((await r.next()).body, { result: 'twö' });
    // Not a lane request: node:http takes the connection over and answers it.
    socket.write('GET /status HTTP/1.1\r\nHost: x\r\n\r\n');
    const status = await r.next();
    assert.equal(status.status, 200);
    assert.deepEqual(status.body, { status: 'ok' });
    socket.write(run('three'));
    assert.deepEqual((await r.next()).body, { result: 'three' }, 'node:http serves /run too');
  });

  test('a request that arrives in pieces is answered once whole', async () => {
    const { socket, replies: r } = await open();
    const request = run('pieces');
    for (const cut of [3, 20, request.indexOf('\r\n\r\n') + 2, request.length - 5]) {
      socket.write(request.slice(0, cut));
      await new Promise((resolve) => setTimeout(resolve, 20));
      socket.write(request.slice(cut));
      assert.deepEqual((await r.next()).body, { result: 'pieces' });
    }
  });

  test('a large body, read in many chunks, arrives whole', async () => {
    const { socket, replies: r } = await open();
    const message = 'x'.repeat(3 * 1024 * 1024);
    socket.write(run(message));
    assert.deepEqual((await r.next()).body, { result: message });
  });

  test('a call that outlasts the keep-alive idle time is answered; an idle connection is then closed', async () => {
    const { socket, replies: r } = await open();
    socket.write(run('slow', '', IDLE_MS + 1500));
    assert.deepEqual((await r.next()).body, { result: 'slow' });
    assert.equal(r.ended, false);
    await r.closed; // IDLE_MS without a request
  });

  test('a wrong token gets 401 and nothing runs; the connection stays usable', async () => {
    const { socket, replies: r } = await open();
    socket.write(run('x').replace(server.token, 'not-the-token'));
    const refused = await r.next();
    assert.equal(refused.status, 401);
    assert.deepEqual(refused.body, { error: 'missing or wrong tool server token' });
    socket.write(run('after'));
    assert.deepEqual((await r.next()).body, { result: 'after' });
  });

  test('Connection: close is answered, then the connection ends', async () => {
    const { socket, replies: r } = await open();
    socket.write(run('last', 'Connection: close\r\n'));
    const reply = await r.next();
    assert.deepEqual(reply.body, { result: 'last' });
    assert.equal(reply.headers.connection, 'close');
    await r.closed;
  });

  test('a chunked body is not for the lane: node:http serves it as before', async () => {
    const { socket, replies: r } = await open();
    const body = JSON.stringify({
      server_name: 'fake',
      tool_name: 'echo',
      tool_args: { message: 'chunked' },
    });
    socket.write(
      'POST /run HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
        `Authorization: Bearer ${server.token}\r\nTransfer-Encoding: chunked\r\n\r\n` +
        `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    );
    assert.deepEqual((await r.next()).body, { result: 'chunked' });
  });

  test('close() ends connections still on the lane', async () => {
    const other = await ToolServer.start({ connections: fakeConnections(), logger: silent });
    other.approval.policy = 'auto';
    const port = Number(new URL(other.url as string).port);
    const socket = connect(port, '127.0.0.1');
    sockets.push(socket);
    const r = replies(socket);
    socket.write(run('x').replace(server.token, other.token));
    assert.deepEqual((await r.next()).body, { result: 'x' });
    await other.close();
    await r.closed;
  });
});
