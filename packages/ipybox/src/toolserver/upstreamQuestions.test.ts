/**
 * Upstream MCP servers that ask the user something in the middle of a tool call made by kernel
 * code, end to end over stdio: a 2026-07-28-only upstream built on SDK v2 (`upstream-modern`,
 * whose `confirm` answers `input_required` with an elicitation) and a 2025 one
 * (`server-everything`, which sends `elicitation/create`), registered with `register_mcp_server`
 * from a real `ipybox` driven by real SDK v2 clients of both eras, and called from Python.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Era, FIRST_MODERN_VERSION, UpstreamPool } from '@mcpbox/framework';
import { fixtureParams } from '@mcpbox/framework/testing';
import type { Client, ClientOptions } from '@modelcontextprotocol/client';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/server';
import { pythonJson } from '../__fixtures__/toolserver-python.ts';
import { generateMcpSources } from '../mcptools/generate.ts';
import {
  registerEverything,
  runCell,
  type StdioIpybox,
  startStdioIpybox,
  tempWorkspace,
  textOf,
} from '../server/testing.ts';
import { ToolServer } from './toolServer.ts';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** Kernel code that calls `mcptools.modern.<tool>` and prints its answer or `<error> | <why>`. */
function callModern(tool: string, args: Record<string, unknown>): string {
  return [
    'from mcptools._runtime import ToolCallError',
    `from mcptools.modern import ${tool}`,
    'try:',
    `    print(${tool}.run(${JSON.stringify(args)}))`,
    'except ToolCallError as e:',
    "    print(type(e).__name__, '|', e)",
  ].join('\n');
}

async function registerModern(client: Client): Promise<string[]> {
  const result = await client.callTool({
    name: 'register_mcp_server',
    arguments: { server_name: 'modern', server_params: fixtureParams('upstream-modern.ts') },
  });
  assert.equal(result.isError, undefined, textOf(result));
  return textOf(result).split('\n');
}

/** A client of `era` that answers elicitations with `answer` (when given) and records them. */
async function boxFor(
  era: Era,
  workspace: string,
  answer?: (request: ElicitRequest) => Promise<ElicitResult>,
): Promise<{ box: StdioIpybox; asked: ElicitRequest['params'][] }> {
  const options: ClientOptions = answer ? { capabilities: { elicitation: {} } } : {};
  if (era === 'modern') options.versionNegotiation = { mode: { pin: FIRST_MODERN_VERSION } };
  // A short approval timeout also bounds how long an upstream's question may wait.
  const box = await startStdioIpybox(workspace, {
    args: ['--approval-timeout', '4'],
    clientOptions: options,
  });
  const asked: ElicitRequest['params'][] = [];
  if (answer) {
    box.client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params);
      return answer(request);
    });
  }
  assert.equal(box.client.getProtocolEra(), era);
  return { box, asked };
}

describe('upstream questions during tool calls from kernel code', () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  before(async () => {
    ws = await tempWorkspace();
  });
  after(async () => {
    await ws?.remove();
  });

  test('2025 client: a 2026-only upstream is registered and its tools run from Python; its confirmation reaches the user', async (t) => {
    let answer: () => Promise<ElicitResult> = async () => ({
      action: 'accept',
      content: { ok: true },
    });
    const { box, asked } = await boxFor('legacy', ws.dir, () => answer());
    t.after(() => box.close());
    const modules = await registerModern(box.client);
    assert.ok(modules.includes('echo') && modules.includes('confirm'), modules.join(','));

    const plain = await runCell(box.client, callModern('echo', { text: 'hi' }));
    assert.equal(textOf(plain), 'echo: hi');

    // The user takes 1.5 s to answer; the cell's 1 s timeout does not run meanwhile.
    answer = async () => {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      return { action: 'accept', content: { ok: true } };
    };
    const accepted = await runCell(box.client, callModern('confirm', { action: 'deploy' }), {
      timeout: 1,
    });
    assert.equal(textOf(accepted), 'deploy: accept {"ok":true}');
    assert.equal(asked.length, 1);
    assert.match(
      asked[0]?.message ?? '',
      /MCP server 'modern' \(tool 'confirm'.*\n\nReally deploy\?$/s,
    );

    answer = async () => ({ action: 'decline' });
    const declined = await runCell(box.client, callModern('confirm', { action: 'delete' }));
    assert.equal(textOf(declined), 'delete: decline null');

    // A user who never answers: the question is withdrawn after --approval-timeout, not a hang.
    answer = () => new Promise<never>(() => {});
    const abandoned = await runCell(box.client, callModern('confirm', { action: 'wait' }));
    assert.match(textOf(abandoned), /^InputUnavailable \| modern\.confirm asked .*within 4 s/);
    // The kernel and the upstream still work.
    assert.equal(
      textOf(await runCell(box.client, callModern('echo', { text: 'after' }))),
      'echo: after',
    );
  });

  test('2025 client: a 2025 upstream (server-everything) asking by elicitation/create reaches the user too', async (t) => {
    const { box, asked } = await boxFor('legacy', ws.dir, async () => ({ action: 'decline' }));
    t.after(() => box.close());
    await registerEverything(box.client);
    const result = await runCell(
      box.client,
      [
        'from mcptools.everything import trigger_elicitation_request as ask',
        'print(ask.run({}))',
      ].join('\n'),
    );
    assert.equal(result.isError, undefined, textOf(result));
    assert.equal(asked.length, 1);
    assert.match(asked[0]?.message ?? '', /MCP server 'everything'.*Please provide inputs/s);
    assert.match(textOf(result), /decline/i);
  });

  test('2025 client: an upstream sampling request goes to the client too', async (t) => {
    const box = await startStdioIpybox(ws.dir, {
      clientOptions: { capabilities: { sampling: {} } },
    });
    t.after(() => box.close());
    const asked: unknown[] = [];
    box.client.setRequestHandler('sampling/createMessage', async (request) => {
      asked.push(request.params.messages);
      return {
        role: 'assistant',
        model: 'test-model',
        content: { type: 'text', text: 'a short summary' },
      };
    });
    await registerModern(box.client);
    const result = await runCell(box.client, callModern('summarize', { topic: 'MCP' }));
    assert.equal(textOf(result), 'summary by test-model: a short summary');
    assert.match(JSON.stringify(asked), /Summarize MCP/);
  });

  test('2025 client without elicitation: InputUnavailable in Python, saying why', async (t) => {
    const { box } = await boxFor('legacy', ws.dir);
    t.after(() => box.close());
    await registerModern(box.client);
    const result = await runCell(box.client, callModern('confirm', { action: 'deploy' }));
    assert.match(
      textOf(result),
      /^InputUnavailable \| modern\.confirm asked the user for input \(elicitation\), but .*elicitation/,
    );
  });

  test('2026 client: registers the 2026-only upstream and calls it from Python; its confirmation reaches the user as input_required', async (t) => {
    let action: ElicitResult['action'] = 'accept';
    const { box, asked } = await boxFor('modern', ws.dir, async () =>
      action === 'accept' ? { action, content: { ok: true } } : { action },
    );
    t.after(() => box.close());
    await registerModern(box.client);
    const plain = await runCell(box.client, callModern('echo', { text: 'from 2026' }));
    assert.equal(textOf(plain), 'echo: from 2026');

    const accepted = await runCell(box.client, callModern('confirm', { action: 'deploy' }));
    assert.equal(textOf(accepted), 'deploy: accept {"ok":true}');
    assert.equal(asked.length, 1);
    assert.match(
      asked[0]?.message ?? '',
      /MCP server 'modern' \(tool 'confirm'.*Really deploy\?$/s,
    );

    action = 'decline';
    const declined = await runCell(box.client, callModern('confirm', { action: 'delete' }));
    assert.equal(textOf(declined), 'delete: decline null');
    // The cell ran once: state set before the question is there once.
    const once = await runCell(
      box.client,
      [
        'n = globals().get("n", 0) + 1',
        callModern('confirm', { action: 'count' }),
        'print(n)',
      ].join('\n'),
    );
    assert.equal(textOf(once), 'count: decline null\n1');
  });
});

describe('upstream questions with no cell running', () => {
  let root: string;
  let server: ToolServer;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'toolserver-questions-'));
    const pool = new UpstreamPool({ logger: silent });
    await pool.define('modern', fixtureParams('upstream-modern.ts'));
    server = await ToolServer.start({ connections: pool, logger: silent });
    server.approval.policy = 'auto';
    await generateMcpSources('modern', {}, root, {
      listTools: () => pool.get('modern').listTools(),
    });
  });
  after(async () => {
    await server?.close();
    await rm(root, { recursive: true, force: true });
  });

  test('a call whose upstream asks, made when no cell runs (a background thread), fails at once', async () => {
    const outcome = await pythonJson<{ error?: string; message?: string }>(
      `
import json
from mcptools._runtime import ToolError
from mcptools.modern import confirm
try:
    out = {'ok': confirm.run({'action': 'x'})}
except ToolError as e:
    out = {'error': type(e).__name__, 'message': str(e)}
print(json.dumps(out))
`,
      { root, env: server.kernelEnv() },
    );
    assert.equal(outcome.error, 'InputUnavailable');
    assert.match(outcome.message ?? '', /no cell is running/);
  });
});
