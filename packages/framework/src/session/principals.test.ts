// A task or a waiting call belongs to the principal that started it: over real HTTP behind
// OAuth (a real introspection server), another principal's task id is "not found" for get,
// update and cancel (the task goes on untouched), and a requestState naming another
// principal's waiting call is refused.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  pollTask,
  rawModern,
  startIntrospectionServer,
  TASKS_CAPABILITIES,
} from '@mcpbox/test-utils';
import { z } from 'zod';
import { createSecurity } from '../security.ts';
import { createServer } from '../server.ts';

type After = { after: (fn: () => Promise<void> | void) => void };

async function start(t: After): Promise<string> {
  const as = await startIntrospectionServer();
  t.after(() => as.close());
  const exp = Math.floor(Date.now() / 1000) + 3600;
  as.tokens.set('alice-token', { active: true, client_id: 'alice', scope: 'user', exp });
  as.tokens.set('bob-token', { active: true, client_id: 'bob', scope: 'user', exp });
  const security = createSecurity({
    transport: 'http',
    oauth_enabled: true,
    oauth_server_url: as.url,
    oauth_public_url: 'http://127.0.0.1/mcp',
    oauth_cache_ttl: 28800,
    oauth_required_scopes: ['user'],
    metrics: false,
  });
  t.after(() => security.close());
  const server = createServer({
    name: 'principals',
    transport: 'http',
    port: 0,
    ...security.httpOptions,
  });
  t.after(() => server.close());
  security.install(server);
  server.registerTool(
    'wait',
    { inputSchema: { label: z.string() }, keepsRunning: { tasks: true } },
    async ({ label }, ctx) => {
      const answer = await ctx.elicit({
        mode: 'form',
        message: `Go on with ${label}?`,
        requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
      });
      return `${label}: ${answer.action}`;
    },
  );
  return (await server.start()) as string;
}

const as = (who: string) => ({ authorization: `Bearer ${who}-token` });
const CAPS = { ...TASKS_CAPABILITIES, elicitation: { form: {} } };

test("another principal's task is not found; the owner's task goes on untouched", async (t) => {
  const url = await start(t);
  const created = await rawModern(
    url,
    'tools/call',
    { name: 'wait', arguments: { label: 'mine' } },
    { capabilities: CAPS, headers: as('alice') },
  );
  const taskId = created.result?.taskId as string;
  assert.ok(taskId, JSON.stringify(created));
  await pollTask(url, taskId, (v) => v.status === 'input_required', { headers: as('alice') });

  const answer = { q0: { action: 'accept', content: { ok: true } } };
  for (const [method, params] of [
    ['tasks/get', { taskId }],
    ['tasks/update', { taskId, inputResponses: answer }],
    ['tasks/cancel', { taskId }],
  ] as const) {
    const refused = await rawModern(url, method, params, {
      capabilities: CAPS,
      headers: as('bob'),
    });
    assert.equal(refused.error?.code, -32602, `${method}: ${JSON.stringify(refused)}`);
    assert.match(refused.error?.message ?? '', /not found/);
  }
  const still = await pollTask(url, taskId, () => true, { headers: as('alice') });
  assert.equal(still.status, 'input_required');

  await rawModern(
    url,
    'tasks/update',
    { taskId, inputResponses: answer },
    { capabilities: CAPS, headers: as('alice') },
  );
  const done = await pollTask(url, taskId, (v) => v.status === 'completed', {
    headers: as('alice'),
  });
  assert.deepEqual(done.result, { content: [{ type: 'text', text: 'mine: accept' }] });
});

test("a requestState naming another principal's waiting call is refused", async (t) => {
  const url = await start(t);
  const elicitOnly = { elicitation: { form: {} } };
  const round = await rawModern(
    url,
    'tools/call',
    { name: 'wait', arguments: { label: 'live' } },
    { capabilities: elicitOnly, headers: as('alice') },
  );
  assert.equal(round.result?.resultType, 'input_required', JSON.stringify(round));
  const retry = {
    name: 'wait',
    arguments: { label: 'live' },
    inputResponses: { q0: { action: 'accept', content: { ok: true } } },
    requestState: round.result?.requestState,
  };
  const stolen = await rawModern(url, 'tools/call', retry, {
    capabilities: elicitOnly,
    headers: as('bob'),
  });
  assert.equal(stolen.error?.code, -32602, JSON.stringify(stolen));
  const owned = await rawModern(url, 'tools/call', retry, {
    capabilities: elicitOnly,
    headers: as('alice'),
  });
  assert.deepEqual(owned.result?.content, [{ type: 'text', text: 'live: accept' }]);
});
