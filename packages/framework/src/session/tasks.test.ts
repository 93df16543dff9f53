// The Tasks extension (io.modelcontextprotocol/tasks) on a real HTTP server: a tool that opts in
// runs as a task for a request that carries the extension in its capabilities (either era;
// a 2025 client's declaration at initialize is not enough), polled with tasks/get, answered with tasks/update, stopped with tasks/cancel;
// clients without the extension keep the plain result and get -32021 from tasks/*.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pollTask, rawModern, TASKS_CAPABILITIES } from '@mcpbox/test-utils';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { createServer } from '../server.ts';

type After = { after: (fn: () => Promise<void>) => void };

const aborted = new Set<string>();

async function startServer(t: After): Promise<string> {
  const server = createServer({ name: 'tasks', transport: 'http', port: 0 });
  server.registerTool(
    'slow',
    {
      inputSchema: { label: z.string(), ms: z.number() },
      keepsRunning: { tasks: true },
    },
    async ({ label, ms }, ctx) => {
      await ctx.reportProgress(1, undefined, `${label} started; `);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        ctx.mcpReq.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          aborted.add(label);
          resolve();
        });
      });
      await ctx.reportProgress(2, undefined, `${label} done`);
      return `${label} finished`;
    },
  );
  server.registerTool(
    'confirm',
    { inputSchema: { what: z.string() }, keepsRunning: { tasks: true } },
    async ({ what }, ctx) => {
      const answer = await ctx.elicit({
        mode: 'form',
        message: `Delete ${what}?`,
        requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
      });
      return `${what}: ${answer.action}`;
    },
  );
  server.registerTool('failing', { keepsRunning: { tasks: true } }, async () => ({
    content: [{ type: 'text', text: 'it broke' }],
    isError: true,
  }));
  server.registerTool('only_task', { keepsRunning: { tasks: 'required' } }, async () => 'ran');
  server.registerTool('ask_then_task', {}, async (ctx) => {
    const answer = await ctx.elicit(
      {
        mode: 'form',
        message: 'Name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
      },
      { key: 'who' },
    );
    return ctx.runAsTask(async () => `task for ${answer.content?.name}`);
  });
  const url = (await server.start()) as string;
  t.after(() => server.close());
  return url;
}

/** An empty acknowledgement: `resultType: "complete"` and no task fields. */
function assertAck(response: { result?: Record<string, unknown> }): void {
  assert.equal(response.result?.resultType, 'complete', JSON.stringify(response));
  for (const field of ['taskId', 'status', 'result', 'error', 'inputRequests']) {
    assert.ok(!(field in (response.result ?? {})), `no ${field} in an acknowledgement`);
  }
}

const ELICIT_AND_TASKS = { ...TASKS_CAPABILITIES, elicitation: { form: {} } };

test('2026: a task is created, shows its progress while working, and completes with the result', async (t) => {
  const url = await startServer(t);
  const created = await rawModern(
    url,
    'tools/call',
    { name: 'slow', arguments: { label: 'a', ms: 60_000 } },
    { capabilities: TASKS_CAPABILITIES },
  );
  const task = created.result ?? {};
  assert.equal(task.resultType, 'task', JSON.stringify(created));
  assert.equal(typeof task.taskId, 'string');
  assert.ok((task.taskId as string).length >= 32, 'an unguessable id');
  assert.equal(task.status, 'working');
  assert.ok(Number.isInteger(task.ttlMs) && Number.isInteger(task.pollIntervalMs));
  for (const absent of ['result', 'error', 'inputRequests', 'requestState']) {
    assert.ok(!(absent in task), `no ${absent} on CreateTaskResult`);
  }
  const taskId = task.taskId as string;
  const working = await pollTask(url, taskId, (v) => v.statusMessage === 'a started; ');
  assert.equal(working.status, 'working');
  assert.ok(!('result' in working));

  // A short one runs to completion.
  const short = await rawModern(
    url,
    'tools/call',
    { name: 'slow', arguments: { label: 'b', ms: 10 } },
    { capabilities: TASKS_CAPABILITIES },
  );
  const done = await pollTask(url, short.result?.taskId as string, (v) => v.status !== 'working');
  assert.equal(done.status, 'completed');
  assert.deepEqual(done.result, { content: [{ type: 'text', text: 'b finished' }] });
  assert.equal(done.statusMessage, 'b started; b done');

  // Cancelled mid-run: the handler's signal aborts; a second cancel is acknowledged too.
  const cancel = await rawModern(
    url,
    'tasks/cancel',
    { taskId },
    { capabilities: TASKS_CAPABILITIES },
  );
  assertAck(cancel);
  assert.equal((await pollTask(url, taskId, () => true)).status, 'cancelled');
  await pollTask(url, taskId, () => aborted.has('a'));
  const again = await rawModern(
    url,
    'tasks/cancel',
    { taskId },
    { capabilities: TASKS_CAPABILITIES },
  );
  assertAck(again);
  assert.equal((await pollTask(url, taskId, () => true)).status, 'cancelled');
});

test('2026: a question parks the task in input_required until tasks/update answers it', async (t) => {
  const url = await startServer(t);
  const created = await rawModern(
    url,
    'tools/call',
    { name: 'confirm', arguments: { what: 'x.txt' } },
    { capabilities: ELICIT_AND_TASKS },
  );
  const taskId = created.result?.taskId as string;
  const parked = await pollTask(url, taskId, (v) => v.status === 'input_required');
  const requests = parked.inputRequests as Record<string, { method: string }>;
  assert.deepEqual(Object.keys(requests), ['q0']);
  assert.equal(requests.q0?.method, 'elicitation/create');

  // A malformed answer is refused and the question keeps waiting.
  const bad = await rawModern(
    url,
    'tasks/update',
    { taskId, inputResponses: { q0: { roots: [] } } },
    { capabilities: ELICIT_AND_TASKS },
  );
  assert.equal(bad.error?.code, -32602, JSON.stringify(bad));
  const update = await rawModern(
    url,
    'tasks/update',
    { taskId, inputResponses: { q0: { action: 'accept', content: { ok: true } }, zz: {} } },
    { capabilities: ELICIT_AND_TASKS },
  );
  assertAck(update);
  const done = await pollTask(url, taskId, (v) => v.status === 'completed');
  assert.deepEqual(done.result, { content: [{ type: 'text', text: 'x.txt: accept' }] });
});

test('2026: a tool error completes the task with isError; unknown ids and undeclared clients get clear errors', async (t) => {
  const url = await startServer(t);
  const created = await rawModern(
    url,
    'tools/call',
    { name: 'failing', arguments: {} },
    { capabilities: TASKS_CAPABILITIES },
  );
  const done = await pollTask(url, created.result?.taskId as string, (v) => v.status !== 'working');
  assert.equal(done.status, 'completed');
  assert.equal((done.result as { isError?: boolean }).isError, true);

  const unknown = await rawModern(
    url,
    'tasks/get',
    { taskId: 'no-such-task' },
    { capabilities: TASKS_CAPABILITIES },
  );
  assert.equal(unknown.error?.code, -32602);
  assert.match(unknown.error?.message ?? '', /not found/);

  // Without the extension: the plain result, and tasks/* refused with -32021.
  const plain = await rawModern(url, 'tools/call', {
    name: 'slow',
    arguments: { label: 'plain', ms: 1 },
  });
  assert.equal(plain.result?.resultType, 'complete');
  assert.deepEqual(plain.result?.content, [{ type: 'text', text: 'plain finished' }]);
  const required = await rawModern(url, 'tools/call', { name: 'only_task', arguments: {} });
  assert.equal(required.error?.code, -32021, JSON.stringify(required));
  assert.deepEqual(required.error?.data, {
    requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } },
  });
  for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
    const refused = await rawModern(url, method, {
      taskId: created.result?.taskId as string,
      inputResponses: {},
    });
    assert.equal(refused.error?.code, -32021, `${method}: ${JSON.stringify(refused)}`);
  }

  // The opt-in is the server's business: it is not part of the tool's listing.
  const listed = await rawModern(url, 'tools/list', {});
  const tools = (listed.result?.tools ?? []) as Record<string, unknown>[];
  const slow = tools.find((x) => x.name === 'slow');
  assert.ok(slow && !('keepsRunning' in slow), JSON.stringify(slow));

  const discovered = await rawModern(url, 'server/discover', {});
  const capabilities = discovered.result?.capabilities as { extensions?: object };
  assert.deepEqual(capabilities.extensions, { 'io.modelcontextprotocol/tasks': {} });
});

test('2025: a task only for a request that carries the extension (SEP-2663: regardless of prior declarations); declared only at initialize, the plain result', async (t) => {
  const url = await startServer(t);
  // What the MCP Inspector CLI does: the extension at initialize, nothing on the request.
  const client = new Client(
    { name: 'tasks-2025', version: '1.0.0' },
    {
      capabilities: TASKS_CAPABILITIES,
      versionNegotiation: { mode: 'legacy' },
    },
  );
  // What the wire carries (the SDK's 2025 client drops `resultType` when it reads a result).
  const wire: Promise<string>[] = [];
  const fetchRecording: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    // Not the GET event stream: its body stays open for the life of the session.
    if (init?.method === 'POST') wire.push(response.clone().text());
    return response;
  };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: fetchRecording }));
  t.after(() => client.close());
  const plain = await client.callTool({ name: 'slow', arguments: { label: 'p', ms: 1 } });
  assert.deepEqual(plain.content, [{ type: 'text', text: 'p finished' }]);
  assert.ok(!('taskId' in plain), JSON.stringify(plain));
  // A tool that runs only as a task: refused (-32021 naming the extension), never a task.
  await assert.rejects(client.callTool({ name: 'only_task', arguments: {} }), (error: Error) => {
    assert.match(error.message, /io\.modelcontextprotocol\/tasks/);
    return true;
  });

  const loose = z.looseObject({});
  const created = (await client.request(
    {
      method: 'tools/call',
      params: {
        name: 'slow',
        arguments: { label: 'old', ms: 10 },
        _meta: { 'io.modelcontextprotocol/clientCapabilities': TASKS_CAPABILITIES },
      },
    },
    loose,
  )) as Record<string, unknown>;
  assert.equal(created.status, 'working', JSON.stringify(created));
  const taskId = created.taskId as string;
  assert.equal(typeof taskId, 'string');
  const sent = (await Promise.all(wire)).find((body) => body.includes(taskId)) ?? '';
  assert.match(sent, /"resultType":"task"/, sent);
  let view: Record<string, unknown> = {};
  for (let i = 0; i < 1000 && view.status !== 'completed'; i++) {
    view = (await client.request({ method: 'tasks/get', params: { taskId } }, loose)) as Record<
      string,
      unknown
    >;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.deepEqual(view.result, { content: [{ type: 'text', text: 'old finished' }] });
});

test('2026: a handler asks in input_required rounds, then goes on as a task (ctx.runAsTask)', async (t) => {
  const url = await startServer(t);
  const round = await rawModern(
    url,
    'tools/call',
    { name: 'ask_then_task', arguments: {} },
    { capabilities: ELICIT_AND_TASKS },
  );
  assert.equal(round.result?.resultType, 'input_required', JSON.stringify(round));
  assert.ok(!('taskId' in (round.result ?? {})));
  const created = await rawModern(
    url,
    'tools/call',
    {
      name: 'ask_then_task',
      arguments: {},
      inputResponses: { who: { action: 'accept', content: { name: 'Alice' } } },
      requestState: round.result?.requestState,
    },
    { capabilities: ELICIT_AND_TASKS },
  );
  assert.equal(created.result?.resultType, 'task', JSON.stringify(created));
  assert.ok(!('requestState' in (created.result ?? {})));
  const done = await pollTask(url, created.result?.taskId as string, (v) => v.status !== 'working');
  assert.deepEqual(done.result, { content: [{ type: 'text', text: 'task for Alice' }] });

  // Without the extension, going on as a task is refused with -32021.
  const elicitOnly = { elicitation: { form: {} } };
  const first = await rawModern(
    url,
    'tools/call',
    { name: 'ask_then_task', arguments: {} },
    { capabilities: elicitOnly },
  );
  const refused = await rawModern(
    url,
    'tools/call',
    {
      name: 'ask_then_task',
      arguments: {},
      inputResponses: { who: { action: 'accept', content: { name: 'Bob' } } },
      requestState: first.result?.requestState,
    },
    { capabilities: elicitOnly },
  );
  assert.equal(refused.error?.code, -32021, JSON.stringify(refused));
});
