// The requests a session answers past the SDK's dispatch (directAnswers.ts), seen from a client
// of a real stdio server: the same answers as the SDK gives, and the SDK's refusals for anything
// the session has not established.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { type TestContext, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { firstText } from '@mcpbox/test-utils';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const SCRIPT = join(fileURLToPath(new URL('.', import.meta.url)), '../__fixtures__/stdioServer.ts');

interface Answer {
  id?: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/** The fixture server over raw stdio lines: `ask` writes one request and waits for its answer. */
function rawServer(t: TestContext) {
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT], {
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  t.after(() => child.kill('SIGKILL'));
  const waiting = new Map<unknown, (answer: Answer) => void>();
  createInterface({ input: child.stdout }).on('line', (line) => {
    const answer = JSON.parse(line) as Answer;
    waiting.get(answer.id)?.(answer);
    waiting.delete(answer.id);
  });
  let next = 0;
  return {
    ask(method: string, params?: Record<string, unknown>): Promise<Answer> {
      const id = `r${next++}`;
      const answered = new Promise<Answer>((resolve) => waiting.set(id, resolve));
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      return answered;
    },
    tell(method: string, params?: Record<string, unknown>): void {
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method, params })}\n`);
    },
  };
}

const envelope = (client: string, version = '2026-07-28', capabilities: unknown = {}) => ({
  'io.modelcontextprotocol/protocolVersion': version,
  'io.modelcontextprotocol/clientCapabilities': capabilities,
  'io.modelcontextprotocol/clientInfo': { name: client, version: '1' },
});

/** What an answer says, without the id it answers. */
const said = ({ id: _id, ...answer }: Answer) => answer;

const CALLS: [string, Record<string, unknown>][] = [
  ['tools/call', { name: 'echo', arguments: { message: 'hi' } }],
  ['tools/call', { name: 'add', arguments: { a: 2, b: 3 } }],
  ['tools/call', { name: 'fail', arguments: {} }],
  ['tools/call', { name: 'echo', arguments: { message: 5 } }],
  ['tools/call', { name: 'missing', arguments: {} }],
  ['tools/call', { name: 'malformed' }],
  ['tools/call', { name: 'picture' }],
  ['tools/call', { name: 'blurred' }],
  ['tools/call', { name: 'echo', arguments: { message: 'with meta' }, _meta: { trace: 'x' } }],
  ['tools/call', { name: 'request_meta', _meta: { trace: 'x', toString: 'y' } }],
  ['tools/call', { name: 'request_meta' }],
  ['ping', {}],
];

test('2026 over stdio: each answer the session gives itself is the one the SDK gave', async (t) => {
  const server = rawServer(t);
  let n = 0;
  for (const [method, params] of CALLS) {
    // A new envelope goes through the SDK (and is then known); the same request again with the
    // same envelope is answered by the session.
    const _meta = { ...(params._meta as object), ...envelope(`client-${n++}`) };
    const bySdk = await server.ask(method, { ...params, _meta });
    const bySession = await server.ask(method, { ...params, _meta });
    assert.deepEqual(said(bySession), said(bySdk), `${method} ${JSON.stringify(params)}`);
  }
  const echoed = await server.ask('tools/call', {
    name: 'echo',
    arguments: { message: 'hi' },
    _meta: envelope('client-0'),
  });
  assert.deepEqual(echoed.result?.content, [{ type: 'text', text: 'hi' }]);
  assert.equal(echoed.result?.resultType, 'complete');
  const malformed = await server.ask('tools/call', {
    name: 'malformed',
    _meta: envelope('client-0'),
  });
  assert.equal(malformed.error?.code, -32602);
  assert.match(malformed.error?.message ?? '', /Invalid tools\/call result/);
  const picture = await server.ask('tools/call', { name: 'picture', _meta: envelope('client-0') });
  assert.deepEqual(picture.result?.content, [
    { type: 'image', data: 'aGk=', mimeType: 'image/png' },
    { type: 'text', text: 'caption', annotations: { priority: 1 } },
  ]);
  const blurred = await server.ask('tools/call', { name: 'blurred', _meta: envelope('client-0') });
  assert.equal(blurred.error?.code, -32602);
});

test('2026 over stdio: an envelope the SDK has not accepted is still refused by it', async (t) => {
  const server = rawServer(t);
  const good = envelope('good');
  const first = await server.ask('tools/call', {
    name: 'echo',
    arguments: { message: 'a' },
    _meta: good,
  });
  assert.deepEqual(first.result?.content, [{ type: 'text', text: 'a' }]);
  // Established: now a request without its envelope, with a malformed one, or for another
  // revision must get the SDK's errors, not an answer.
  const bare = await server.ask('tools/call', { name: 'echo', arguments: { message: 'b' } });
  assert.equal(bare.error?.code, -32602);
  assert.match(bare.error?.message ?? '', /missing the required _meta envelope/);
  const malformed = await server.ask('tools/call', {
    name: 'echo',
    arguments: { message: 'c' },
    _meta: { ...good, 'io.modelcontextprotocol/clientCapabilities': 'all of them' },
  });
  assert.equal(malformed.error?.code, -32602, JSON.stringify(malformed));
  assert.match(malformed.error?.message ?? '', /Invalid _meta envelope/);
  const badParams = await server.ask('tools/call', { name: 7, _meta: good });
  assert.ok(badParams.error, JSON.stringify(badParams));
  // The known envelope is still answered.
  const again = await server.ask('tools/call', {
    name: 'echo',
    arguments: { message: 'd' },
    _meta: good,
  });
  assert.deepEqual(again.result?.content, [{ type: 'text', text: 'd' }]);
});

test('2025 over stdio: calls answered by the session still talk back and can be cancelled', async (t) => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', SCRIPT],
    stderr: 'ignore',
  });
  const client = new Client(
    { name: 'direct-2025', version: '1' },
    { capabilities: { elicitation: { form: {} } } },
  );
  t.after(() => client.close());
  client.setRequestHandler('elicitation/create', async () => ({
    action: 'accept',
    content: { name: 'Ada' },
  }));
  await client.connect(transport);
  assert.equal(client.getProtocolEra(), 'legacy');
  // Elicitation: a server-to-client request in the middle of a call.
  assert.equal(firstText(await client.callTool({ name: 'ask_user', arguments: {} })), 'hello Ada');
  // Progress, each step followed by a ping to the client.
  const steps: number[] = [];
  const counted = await client.callTool(
    { name: 'count', arguments: { to: 3 } },
    { onprogress: (p) => steps.push(p.progress) },
  );
  assert.equal(firstText(counted), 'counted to 3');
  assert.deepEqual(steps, [1, 2, 3]);
  // Cancelling aborts the tool's signal; the client hears no answer and the server goes on.
  const abort = new AbortController();
  const waiting = client.callTool(
    { name: 'wait_for_abort', arguments: {} },
    { signal: abort.signal },
  );
  setTimeout(() => abort.abort('enough'), 100);
  await assert.rejects(waiting);
  assert.equal(
    firstText(await client.callTool({ name: 'echo', arguments: { message: 'on' } })),
    'on',
  );
  // A handler that reads its signal only after the cancellation came still finds it aborted
  // (the signal is made when first read).
  const late = new AbortController();
  const checking = client.callTool(
    { name: 'check_abort_later', arguments: { ms: 400 } },
    { signal: late.signal },
  );
  setTimeout(() => late.abort('enough'), 50);
  await assert.rejects(checking);
  const seen = async () =>
    JSON.parse(firstText(await client.callTool({ name: 'aborts_seen', arguments: {} })));
  for (let tries = 0; (await seen()).seenLate === 0 && tries < 50; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.deepEqual(await seen(), { seenLate: 1 });
  // And one not cancelled reads a live signal.
  assert.equal(
    firstText(await client.callTool({ name: 'check_abort_later', arguments: { ms: 1 } })),
    'not aborted',
  );
});
