// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests write literal ${VAR} placeholders
// UpstreamConnection and the two protocol eras, against real processes: the 2026-only fixture
// (upstream-modern.ts, SDK v2 with `legacy: 'reject'`) over stdio and HTTP, the same fixture
// started as a 2025 server, and server-everything (2025).

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { firstText, removeAtExit, stopGroup, waitUntilGone } from '@mcpbox/test-utils';
import type { ElicitRequestParams } from '@modelcontextprotocol/client';
import { openConnection, type TestHooks } from '../__fixtures__/upstream-connections.ts';
import {
  everythingBin,
  fixtureParams,
  startModernHttp,
} from '../__fixtures__/upstream-processes.ts';
import type { Logger } from '../logging/index.ts';
import type { UpstreamConnection } from './connection.ts';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** A file the fixture appends each start's pid to (probe siblings included). */
function startLog(): { file: string; pids: () => number[] } {
  const dir = removeAtExit(mkdtempSync(join(tmpdir(), 'mcpbox-era-')));
  const file = join(dir, 'starts');
  const pids = () => {
    try {
      return readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  };
  return { file, pids };
}

async function whoami(
  connection: UpstreamConnection,
): Promise<{ pid: number; era: string; cancelled: number }> {
  return JSON.parse(firstText(await connection.callTool('whoami', {})));
}

async function killAndWait(connection: UpstreamConnection, pid: number): Promise<void> {
  process.kill(pid, 'SIGKILL');
  for (let i = 0; i < 400 && connection.connected; i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.equal(connection.connected, false, 'the connection noticed the death');
}

/** Answers each form elicitation with the field it asks for, from `answers`. */
function answering(answers: Record<string, unknown>, asked: string[]) {
  return async (params: ElicitRequestParams) => {
    asked.push(params.message);
    const schema = (params as { requestedSchema?: { properties?: object } }).requestedSchema;
    const field = Object.keys(schema?.properties ?? {})[0];
    return { action: 'accept' as const, content: { [field]: answers[field] as string } };
  };
}

/**
 * The `input_required` rounds of upstream-modern's tools reach the caller (elicitation, a second
 * round carrying `requestState`, sampling); a caller that cannot answer, refuses or goes away
 * ends the call as such.
 */
async function answersInputRounds(connection: UpstreamConnection, name: string): Promise<void> {
  const asked: string[] = [];
  const confirmed = await connection.callTool(
    'confirm',
    { action: 'deploy' },
    {
      elicit: async (params) => {
        asked.push(params.message);
        return { action: 'accept', content: { ok: true } };
      },
    },
  );
  assert.equal(firstText(confirmed), 'deploy: accept {"ok":true}');
  const interview = await connection.callTool(
    'interview',
    {},
    { elicit: answering({ name: 'Ann', colour: 'teal' }, asked) },
  );
  assert.equal(
    firstText(interview),
    'Ann likes teal',
    'the second round carried requestState back',
  );
  assert.deepEqual(asked, ['Really deploy?', 'Your name?', 'Your colour?']);
  const summary = await connection.callTool(
    'summarize',
    { topic: 'MCP' },
    {
      sample: async (params) => {
        const first = params.messages[0].content as { text: string };
        return {
          model: 'test-model',
          role: 'assistant',
          content: { type: 'text', text: `re: ${first.text}` },
        };
      },
    },
  );
  assert.equal(firstText(summary), 'summary by test-model: re: Summarize MCP');

  await assert.rejects(connection.callTool('confirm', { action: 'x' }), {
    code: 'INPUT_UNAVAILABLE',
    message: `upstream '${name}' asked for elicitation, which this caller cannot provide`,
  });
  const refusal = new Error('the caller must be asked first');
  await assert.rejects(
    connection.callTool('confirm', { action: 'x' }, { elicit: () => Promise.reject(refusal) }),
    (error) => error === refusal,
    "the caller's own error ends the call, as it is",
  );

  const controller = new AbortController();
  const unanswered = connection.callTool(
    'confirm',
    { action: 'wait' },
    {
      signal: controller.signal,
      elicit: () => {
        controller.abort('the caller went away');
        return new Promise(() => {}); // a question nobody ever answers
      },
    },
  );
  await assert.rejects(unanswered, {
    code: 'CANCELLED',
    message: `tools/call on upstream '${name}' was cancelled`,
  });
}

test('a 2026-only upstream over stdio: listed as sent, called, asked for input, cancelled; a restart reuses the era verdict', async (t) => {
  const log = startLog();
  const connection = openConnection(
    t,
    [
      'modern',
      fixtureParams('upstream-modern.ts', { UPSTREAM_START_LOG: log.file }),
      { logger: silent },
    ],
    log.pids,
  );
  const tools = await connection.listTools();
  assert.equal(connection.protocolEra, 'modern');
  assert.equal(connection.protocolVersion, '2026-07-28');
  const echo = tools.find((tool) => tool.name === 'echo') as Record<string, unknown>;
  assert.deepEqual(echo['x-future'], { kept: ['as', 'sent'] }, 'a field no revision defines');
  assert.deepEqual(echo.icons, [
    { src: 'data:image/png;base64,iVBORw0KGgo=', mimeType: 'image/png' },
  ]);
  assert.deepEqual(
    Object.keys(echo.inputSchema as object),
    ['required', 'type', 'properties', 'additionalProperties'],
    'the JSON Schema as written, key order included',
  );
  assert.equal(firstText(await connection.callTool('echo', { text: 'hi' })), 'echo: hi');
  assert.equal(log.pids().length, 2, 'the first connect probed on a sibling process');
  await answersInputRounds(connection, 'modern');

  const stop = new AbortController();
  const waiting = connection.callTool('wait', {}, { signal: stop.signal });
  setTimeout(() => stop.abort('enough'), 50);
  await assert.rejects(waiting, { code: 'CANCELLED' });
  let seen = 0;
  for (let i = 0; i < 200 && seen === 0; i++) {
    seen = (await whoami(connection)).cancelled;
    if (seen === 0) await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.equal(seen, 1, 'the upstream saw the call cancelled');

  await killAndWait(connection, (await whoami(connection)).pid);
  const restarted = await whoami(connection);
  assert.equal(restarted.era, 'modern');
  assert.equal(connection.protocolEra, 'modern');
  assert.equal(log.pids().length, 3, 'the restart started only the server: no probe');
  assert.equal(connection.starts, 2);
});

test('an upstream that changes era between connects still connects; one that cannot start fails clearly', async (t) => {
  const log = startLog();
  const env: Record<string, string | undefined> = { ERA: 'modern' };
  const connection = openConnection(
    t,
    [
      'switching',
      fixtureParams('upstream-modern.ts', { UPSTREAM_ERA: '${ERA}', UPSTREAM_START_LOG: log.file }),
      { env, logger: silent },
    ],
    log.pids,
  );
  assert.deepEqual(await whoami(connection).then((w) => w.era), 'modern');

  env.ERA = 'legacy';
  await killAndWait(connection, (await whoami(connection)).pid);
  const legacy = await whoami(connection);
  assert.equal(legacy.era, 'legacy');
  assert.equal(connection.protocolEra, 'legacy');
  assert.equal(connection.protocolVersion, '2025-11-25');
  const echo = (await connection.listTools()).find((tool) => tool.name === 'echo');
  assert.deepEqual(
    (echo as Record<string, unknown>)['x-future'],
    { kept: ['as', 'sent'] },
    'unknown fields survive the 2025 codec too',
  );

  env.ERA = 'modern';
  await killAndWait(connection, legacy.pid);
  assert.equal((await whoami(connection)).era, 'modern');
  assert.equal(connection.protocolEra, 'modern');

  env.ERA = 'broken';
  await killAndWait(connection, (await whoami(connection)).pid);
  await assert.rejects(connection.callTool('whoami', {}), {
    code: 'CONNECT_FAILED',
    message:
      /^upstream 'switching' exited before finishing initialize \(its stderr: .*broken on purpose/,
  });
  env.ERA = 'modern';
  assert.equal((await whoami(connection)).era, 'modern', 'and it recovers once it can start');
});

/** The fixture over HTTP, stopped (and checked gone) when the test ends. */
async function modernHttp(t: TestHooks): Promise<string> {
  const { child, url } = await startModernHttp();
  t.after(async () => {
    stopGroup(child);
    assert.deepEqual(await waitUntilGone([child.pid!], 5_000), []);
  });
  return url;
}

test('a 2026-only upstream over HTTP: input_required rounds reach the caller; list changes arrive', async (t) => {
  const url = await modernHttp(t);
  const changes: string[] = [];
  const connection = openConnection(t, [
    'modern-http',
    { url },
    { logger: silent, onListChanged: (kind) => changes.push(kind) },
  ]);
  assert.equal(
    firstText(await connection.callTool('echo', { text: 'over http' })),
    'echo: over http',
  );
  assert.equal(connection.transportKind, 'streamableHttp');
  assert.equal(connection.protocolEra, 'modern');

  await answersInputRounds(connection, 'modern-http');

  await connection.callTool('add_tool', { name: 'late' });
  for (let i = 0; i < 200 && !changes.includes('tools'); i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.deepEqual(changes, ['tools'], 'tools/list_changed on the subscriptions/listen stream');
  assert.ok((await connection.listTools()).some((tool) => tool.name === 'late'));
});

test("a 2025 upstream's requests reach the caller that made the call, never a guessed one", async (t) => {
  const connection = openConnection(t, [
    'everything',
    { command: everythingBin, args: ['stdio'] },
    { logger: silent },
  ]);
  const asked: string[] = [];
  const elicited = await connection.callTool(
    'trigger-elicitation-request',
    {},
    { caller: 'a', elicit: answering({ name: 'Ann' }, asked) },
  );
  assert.equal(connection.protocolEra, 'legacy');
  assert.deepEqual(asked, ['Please provide inputs for the following fields:']);
  assert.match(JSON.stringify(elicited.content), /Name: Ann/);
  const sampled = await connection.callTool(
    'trigger-sampling-request',
    { prompt: 'hello' },
    {
      caller: 'a',
      sample: async () => ({
        model: 'm',
        role: 'assistant',
        content: { type: 'text', text: 'hi back' },
      }),
    },
  );
  assert.match(firstText(sampled), /hi back/);

  // Two callers at once: the first question is A's (only A's call is in flight); the second
  // cannot be told apart, so it is refused instead of being put to the wrong caller.
  let release: () => void = () => {};
  let firstAsked: () => void = () => {};
  const waiting = new Promise<void>((resolve) => {
    firstAsked = resolve;
  });
  const callA = connection.callTool(
    'trigger-elicitation-request',
    {},
    {
      caller: 'a',
      elicit: () => {
        firstAsked();
        return new Promise((resolve) => {
          release = () => resolve({ action: 'decline' });
        });
      },
    },
  );
  await waiting;
  let askedB = false;
  const outcomeB = await connection
    .callTool(
      'trigger-elicitation-request',
      {},
      {
        caller: 'b',
        elicit: async () => {
          askedB = true;
          return { action: 'accept', content: { name: 'wrong' } };
        },
      },
    )
    .then(
      (result) => JSON.stringify(result),
      (error: Error) => error.message,
    );
  assert.equal(askedB, false, "B was not asked A's question, nor A B's");
  assert.match(outcomeB, /cannot tell which one this elicitation request is for/);
  release();
  assert.match(JSON.stringify((await callA).content), /decline/);
});
