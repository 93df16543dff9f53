/**
 * mcp-factory's stdio wire as a client sees it, byte for byte: the real bin as a child process,
 * raw lines on its stdin. Malformed messages that carry an id are answered, oversized ones are
 * answered and skipped, a byte order mark is ignored, a plugin's console output never reaches
 * stdout, and the server keeps serving after all of it.
 */
import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../../bin/mcp-factory.js', import.meta.url));

const NOISY_PLUGIN = `
console.log('noise from register()');
export function register(server) {
  server.registerTool('noisy', { description: 'prints to stdout' }, () => {
    console.log('noise from a handler');
    process.stdout.write('raw noise\\n');
    return 'quiet result';
  });
}
`;

interface Wire {
  child: ChildProcessWithoutNullStreams;
  send(line: string | Buffer): void;
  /** The next line on stdout, parsed; fails the test on a non-JSON line. */
  next(): Promise<Record<string, unknown>>;
}

function start(t: { after: (fn: () => void) => void }, env: Record<string, string> = {}): Wire {
  const dir = mkdtempSync(join(tmpdir(), 'mcpbox-stdio-'));
  writeFileSync(join(dir, 'noisy.mjs'), NOISY_PLUGIN);
  const child = spawn(process.execPath, [BIN, '-d', dir, '-p', 'echo', 'noisy'], {
    env: { ...process.env, ...env },
  });
  t.after(() => {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  const lines = createInterface({ input: child.stdout });
  const queue: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  lines.on('line', (line) => {
    const waiter = waiting.shift();
    if (waiter) waiter(line);
    else queue.push(line);
  });
  return {
    child,
    send: (line) => child.stdin.write(typeof line === 'string' ? `${line}\n` : line),
    async next() {
      const line = queue.shift() ?? (await new Promise<string>((r) => waiting.push(r)));
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        assert.fail(`stdout carried a line that is not JSON-RPC: ${line}`);
      }
    },
  };
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 't', version: '1' },
  },
});

async function handshake(wire: Wire, prefix = ''): Promise<void> {
  wire.send(prefix + INITIALIZE);
  const answer = await wire.next();
  assert.equal(answer.id, 0);
  assert.ok(answer.result, JSON.stringify(answer));
  wire.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
}

test('malformed requests with an id are answered; a parse error gets -32700; a BOM is ignored', async (t) => {
  const wire = start(t);
  await handshake(wire, '\uFEFF');
  const cases: [string, unknown, number][] = [
    ['{"jsonrpc":"2.0","id":1,"method":"tools/list","params":"oops"}', 1, -32600],
    ['{"jsonrpc":"2.0","id":2,"method":5}', 2, -32600],
    ['{"jsonrpc":"1.0","id":3,"method":"tools/list"}', 3, -32600],
    ['this is not json', null, -32700],
  ];
  for (const [line, id, code] of cases) {
    wire.send(line);
    const answer = (await wire.next()) as { id: unknown; error?: { code: number } };
    assert.equal(answer.id, id, line);
    assert.equal(answer.error?.code, code, line);
  }
  wire.send('{"jsonrpc":"2.0","id":4,"method":"tools/list"}');
  const listed = (await wire.next()) as { id: number; result: { tools: unknown[] } };
  assert.equal(listed.id, 4);
  assert.ok(listed.result.tools.length >= 2, 'still serving after the bad input');
});

test('an oversized message is answered with an error and skipped; reading goes on', async (t) => {
  const wire = start(t, { MCP_MAX_MESSAGE_SIZE: '65536' });
  await handshake(wire);
  const huge = JSON.stringify({
    jsonrpc: '2.0',
    id: 9,
    method: 'tools/call',
    params: { name: 'echo', arguments: { message: 'x'.repeat(200_000) } },
  });
  // In pieces, as a pipe delivers it.
  const bytes = Buffer.from(`${huge}\n`);
  for (let i = 0; i < bytes.length; i += 16_384) wire.send(bytes.subarray(i, i + 16_384));
  const refused = (await wire.next()) as { id: number; error: { code: number; message: string } };
  assert.equal(refused.id, 9);
  assert.equal(refused.error.code, -32600);
  assert.match(refused.error.message, /too large/);
  wire.send(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 10,
      method: 'tools/call',
      params: { name: 'echo', arguments: { message: 'small' } },
    }),
  );
  const echoed = (await wire.next()) as { id: number; result: { content: { text: string }[] } };
  assert.equal(echoed.id, 10);
  assert.equal(echoed.result.content[0].text, 'small');
});

test("a plugin's console output goes to stderr, never into the protocol stream", async (t) => {
  const wire = start(t);
  let stderr = '';
  wire.child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  await handshake(wire);
  wire.send(
    JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'noisy' } }),
  );
  // next() fails the test if any noise line reaches stdout before the answer.
  const answer = (await wire.next()) as { id: number; result: { content: { text: string }[] } };
  assert.equal(answer.id, 5);
  assert.equal(answer.result.content[0].text, 'quiet result');
  assert.match(stderr, /noise from a handler/);
  assert.match(stderr, /raw noise/);
});
