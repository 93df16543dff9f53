/**
 * The approval channel over a real WebSocket on a real tool server (loopback, ephemeral port):
 * `ApprovalClient` against `ApprovalWebSocketEndpoint`, driven through `gate.check` as the tool
 * server's `/run` does. The tool server here has no upstreams; calls never get past approval.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { waitFor } from '@mcpbox/test-utils';
import WebSocket from 'ws';
import { ToolServer } from '../toolserver/toolServer.ts';
import { ApprovalClient } from './approvalClient.ts';
import type { ApprovalOutcome } from './approvalRequest.ts';

const CALL = { server_name: 'fs', tool_name: 'write', tool_args: { path: '/tmp/x' } };
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const noConnections = {
  has: () => false,
  names: () => [],
  get: () => {
    throw new Error('no upstreams in this test');
  },
  closeAll: async () => {},
};

describe('approval over WebSocket', () => {
  let server: ToolServer;
  before(async () => {
    server = await ToolServer.start({ connections: noConnections, logger: silent });
  });
  after(() => server.close());

  function client(): ApprovalClient {
    return new ApprovalClient({
      url: server.approvalUrl!,
      token: server.approvalToken,
      logger: silent,
    });
  }

  test('a wrong token is refused with a clear message', async () => {
    const wrong = new ApprovalClient({ url: server.approvalUrl!, token: 'nope', logger: silent });
    await assert.rejects(wrong.connect(), {
      message: 'approval server refused the connection: HTTP 401 (wrong approval token)',
    });
  });

  test('the kernel token does not open the approval channel', async () => {
    const kernel = new ApprovalClient({
      url: server.approvalUrl!,
      token: server.token,
      logger: silent,
    });
    await assert.rejects(kernel.connect(), /HTTP 401/);
  });

  test('accept and reject travel back; the request carries the call', async (t) => {
    const c = client();
    const seen: unknown[] = [];
    c.onApproval((request) => {
      seen.push(request.toJSON());
      return request.toolArgs.path === '/tmp/x';
    });
    await c.connect();
    t.after(() => c.close());
    await server.approval.check(CALL);
    await assert.rejects(server.approval.check({ ...CALL, tool_args: { path: '/etc/passwd' } }), {
      code: 'rejected',
    });
    assert.deepEqual(seen[0], CALL);
  });

  test('a handler may answer later with accept()', async (t) => {
    const c = client();
    c.onApproval((request) => {
      setTimeout(() => request.accept(), 20);
      return undefined;
    });
    await c.connect();
    t.after(() => c.close());
    await server.approval.check(CALL);
  });

  test('a throwing handler rejects the call', async (t) => {
    const c = client();
    c.onApproval(() => {
      throw new Error('UI crashed');
    });
    await c.connect();
    t.after(() => c.close());
    await assert.rejects(server.approval.check(CALL), { code: 'rejected' });
  });

  test('a timeout withdraws the request from the client and fails as timeout', async (t) => {
    server.approval.timeoutMs = 100;
    t.after(() => {
      server.approval.timeoutMs = undefined;
    });
    const c = client();
    let clientSaw: Promise<ApprovalOutcome> | undefined;
    c.onApproval((request) => {
      clientSaw = request.settled;
      return undefined;
    });
    await c.connect();
    t.after(() => c.close());
    await assert.rejects(server.approval.check(CALL), { code: 'timeout' });
    assert.equal(await clientSaw, 'timeout', 'the client learns the request is gone');
  });

  test('a client that disconnects while deciding fails its pending calls as unavailable', async () => {
    const c = client();
    c.onApproval(() => {
      setTimeout(() => void c.close(), 10);
      return undefined;
    });
    await c.connect();
    await assert.rejects(server.approval.check(CALL), {
      code: 'unavailable',
      message: /the approval client disconnected/,
    });
    assert.equal(server.approval.approverCount, 0);
  });

  test('the newest client decides; when it leaves the older one decides again', async (t) => {
    const older = client().onApproval(() => true);
    const newer = client().onApproval(() => false);
    await older.connect();
    t.after(() => older.close());
    await newer.connect();
    await assert.rejects(server.approval.check(CALL), { code: 'rejected' });
    await newer.close();
    await waitFor(() => server.approval.approverCount === 1, 'one approver left', 2_000);
    await server.approval.check(CALL);
  });

  test('a raw client answering with anything but true is a rejection; bad JSON gets a parse error', async (t) => {
    const ws = new WebSocket(server.approvalUrl!, {
      headers: { Authorization: `Bearer ${server.approvalToken}` },
    });
    t.after(() => ws.close());
    await new Promise((resolve) => ws.once('open', resolve));
    const messages: Record<string, unknown>[] = [];
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString());
      messages.push(message);
      if (message.method === 'approve')
        ws.send(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: 'yes' }));
    });
    await assert.rejects(server.approval.check(CALL), { code: 'rejected' });
    assert.equal(messages[0]!.method, 'approve');
    // The call as kernel code made it, and who asks and why (the protocol mcp-proxy speaks too).
    assert.deepEqual(messages[0]!.params, {
      ...CALL,
      principal: 'kernel',
      rule: 'approval: ask',
      via: 'code',
    });
    ws.send('{not json');
    await waitFor(() => messages.length === 2, 'the parse error', 2_000);
    assert.deepEqual(messages[1], {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error' },
    });
  });
});
