import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { codeAt, firstText, newSecret } from '@mcpbox/test-utils';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { McpServer } from '@modelcontextprotocol/server';
import { createGate } from './gate.ts';
import { InMemoryGateStateStore } from './store.ts';
import { recordingLogger, testClock } from './testing.ts';

test('over Streamable HTTP each MCP session has its own unlock state', async (t) => {
  const secret = newSecret();
  const clock = testClock();
  const gate = createGate(
    { groups: { shell: { secret_ref: 'S' } } },
    {
      env: { S: secret },
      clock: clock.now,
      logger: recordingLogger(),
      store: new InMemoryGateStateStore(),
    },
  );

  // One McpServer per session (SDK ≥ 1.26: a server serves one transport), one shared gate.
  const transports = new Map<string, NodeStreamableHTTPServerTransport>();
  const http = createServer(async (req, res) => {
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? transports.get(id) : undefined;
    if (transport === undefined) {
      const server = new McpServer({ name: 'gated', version: '1.0.0' });
      gate.registerTools(server);
      server.registerTool(
        'secret_action',
        {},
        gate.protect('shell', () => ({ content: [{ type: 'text' as const, text: 'done' }] })),
      );
      const created = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (sid) => {
          transports.set(sid, created);
        },
      });
      created.onclose = () => {
        if (created.sessionId) {
          transports.delete(created.sessionId);
          gate.forgetSession(created.sessionId);
        }
      };
      await server.connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
  const clients: Client[] = [];
  t.after(async () => {
    for (const c of clients) await c.close();
    for (const tr of transports.values()) await tr.close();
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  });
  const connect = async () => {
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url));
    clients.push(client);
    return client;
  };
  const alice = await connect();
  const bob = await connect();

  const unlock = await alice.callTool({
    name: 'gate_unlock',
    arguments: { group: 'shell', code: codeAt(secret, clock.now()) },
  });
  assert.equal(firstText(unlock), "Group 'shell' unlocked. Auto-lock after 2h of inactivity.");
  assert.equal(firstText(await alice.callTool({ name: 'secret_action', arguments: {} })), 'done');

  const bobCall = await bob.callTool({ name: 'secret_action', arguments: {} });
  assert.equal(bobCall.isError, true);
  assert.match(firstText(bobCall), /^Group 'shell' is locked\./);
  assert.equal(
    firstText(await bob.callTool({ name: 'gate_status', arguments: {} })),
    '✗ shell: LOCKED',
  );
  assert.match(
    firstText(await alice.callTool({ name: 'gate_status', arguments: {} })),
    /^✓ shell: UNLOCKED/,
  );

  // Bob pulls the kill switch: Alice's unlock is revoked too.
  await bob.callTool({ name: 'gate_lock', arguments: {} });
  assert.equal((await alice.callTool({ name: 'secret_action', arguments: {} })).isError, true);
});
