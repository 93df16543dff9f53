// The Tasks extension over stdio: the real mcp-factory serving the conformance plugin, driven by
// raw 2026-07-28 JSON-RPC lines (the SDK client does not accept `resultType: "task"`): a task is
// created, polled, answered with tasks/update, and another cancelled.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const FACTORY = fileURLToPath(new URL('../../packages/proxy/bin/mcp-factory.js', import.meta.url));
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {
    elicitation: { form: {} },
    extensions: { 'io.modelcontextprotocol/tasks': {} },
  },
  'io.modelcontextprotocol/clientInfo': { name: 'raw-stdio', version: '1' },
};

type Reply = { result?: Record<string, unknown>; error?: { code: number; message: string } };

/** A raw stdio client: one JSON-RPC request per line, replies matched by id. */
function rawStdio(child: ChildProcess) {
  let nextId = 1;
  const waiting = new Map<number, (reply: Reply) => void>();
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const message = JSON.parse(line) as Reply & { id?: number };
    if (typeof message.id === 'number') waiting.get(message.id)?.(message);
  });
  return (method: string, params: Record<string, unknown> = {}): Promise<Reply> => {
    const id = nextId++;
    const reply = new Promise<Reply>((resolve) => waiting.set(id, resolve));
    child.stdin!.write(
      `${JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: ENVELOPE } })}\n`,
    );
    return reply;
  };
}

test('2026 over stdio: tasks are created, answered, polled and cancelled', async (t) => {
  const child = spawn(process.execPath, [FACTORY, '-p', 'conformance', '--log-level', 'warning'], {
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  t.after(async () => {
    child.stdin.end(); // a stdio server ends with its input
    await exited;
  });
  const request = rawStdio(child);
  const discovered = await request('server/discover');
  const capabilities = discovered.result?.capabilities as { extensions?: object } | undefined;
  const extensions = capabilities?.extensions;
  // Tasks, and the skills the conformance plugin ships for the suite's skills scenarios.
  assert.deepEqual(extensions, {
    'io.modelcontextprotocol/tasks': {},
    'io.modelcontextprotocol/skills': { directoryRead: true },
  });

  const poll = async (taskId: string, done: (view: Record<string, unknown>) => boolean) => {
    for (;;) {
      const view = (await request('tasks/get', { taskId })).result ?? {};
      if (done(view)) return view;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  const confirm = await request('tools/call', {
    name: 'confirm_delete',
    arguments: { filename: 'a.txt' },
  });
  assert.equal(confirm.result?.resultType, 'task', JSON.stringify(confirm));
  const confirmId = confirm.result?.taskId as string;
  const parked = await poll(confirmId, (v) => v.status === 'input_required');
  assert.deepEqual(Object.keys(parked.inputRequests as object), ['confirm']);
  const ack = await request('tasks/update', {
    taskId: confirmId,
    inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
  });
  assert.equal(ack.result?.resultType, 'complete', JSON.stringify(ack));
  const done = await poll(confirmId, (v) => v.status === 'completed');
  assert.deepEqual((done.result as { content: unknown }).content, [
    { type: 'text', text: 'Deleted a.txt' },
  ]);

  const slow = await request('tools/call', { name: 'slow_compute', arguments: { seconds: 600 } });
  const slowId = slow.result?.taskId as string;
  assert.equal((await request('tasks/get', { taskId: slowId })).result?.status, 'working');
  assert.equal((await request('tasks/cancel', { taskId: slowId })).result?.resultType, 'complete');
  assert.equal((await poll(slowId, () => true)).status, 'cancelled');
  const unknown = await request('tasks/get', { taskId: 'nope' });
  assert.equal(unknown.error?.code, -32602);
});
