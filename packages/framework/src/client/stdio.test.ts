// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests write literal ${VAR} placeholders
// UpstreamConnection over stdio, against real processes: the npm reference server
// (server-everything) and the fixtures in ../__fixtures__/upstream-*.ts.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { describe, test } from 'node:test';
import {
  descendants,
  firstText,
  isAlive,
  killAll,
  pidsRunning,
  waitUntilGone,
} from '@mcpbox/test-utils';
import type { Progress } from '@modelcontextprotocol/server';
import { openConnection, type TestHooks } from '../__fixtures__/upstream-connections.ts';
import {
  everythingBin,
  fixtureParams,
  fixturePath,
  repoRoot,
} from '../__fixtures__/upstream-processes.ts';
import type { Logger } from '../logging/index.ts';
import type { UpstreamConnection, UpstreamConnectionOptions } from './connection.ts';
import { processGroupGuardAvailable } from './stdioLaunch.ts';

/** A logger that keeps lines, so tests can check what users would see in the log. */
function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const keep = (msg: string) => {
    lines.push(msg);
  };
  return { lines, debug: keep, info: keep, warn: keep, error: keep };
}

const quiet = (): UpstreamConnectionOptions => ({ logger: recordingLogger() });

/** Opens a connection that is closed (and its processes checked) when the test ends. */
const open = (t: TestHooks, ...args: ConstructorParameters<typeof UpstreamConnection>) =>
  openConnection(t, args);

const jsonOf = (result: { content?: unknown }) => JSON.parse(firstText(result));

describe('UpstreamConnection over stdio with server-everything', () => {
  test('lists tools and calls echo', async (t) => {
    const connection = open(t, 'everything', { command: everythingBin, args: ['stdio'] }, quiet());
    assert.equal(connection.connected, false, 'connects lazily');
    const tools = await connection.listTools();
    const echo = tools.find((tool) => tool.name === 'echo');
    assert.ok(echo, 'echo is listed');
    assert.deepEqual(echo.inputSchema.required, ['message']);
    assert.equal(connection.transportKind, 'stdio');
    const result = await connection.callTool('echo', { message: 'hello upstream' });
    assert.deepEqual(result.content, [{ type: 'text', text: 'Echo: hello upstream' }]);
  });

  test('forwards progress of trigger-long-running-operation', async (t) => {
    const connection = open(t, 'everything', { command: everythingBin, args: ['stdio'] }, quiet());
    const progress: Progress[] = [];
    const result = await connection.callTool(
      'trigger-long-running-operation',
      { duration: 0.3, steps: 3 },
      { onprogress: (p) => progress.push(p) },
    );
    assert.match(firstText(result), /Long running operation completed/);
    assert.deepEqual(
      progress.map((p) => [p.progress, p.total]),
      [
        [1, 3],
        [2, 3],
        [3, 3],
      ],
    );
  });

  test('passes resources, resource templates and prompts through', async (t) => {
    const connection = open(t, 'everything', { command: everythingBin, args: ['stdio'] }, quiet());
    const resources = await connection.listResources();
    assert.ok(resources.length > 0);
    const read = await connection.readResource({ uri: resources[0].uri });
    assert.equal(read.contents[0].uri, resources[0].uri);
    const templates = await connection.listResourceTemplates();
    assert.ok(templates.some((tpl) => tpl.uriTemplate.startsWith('demo://resource/dynamic/')));
    const prompts = await connection.listPrompts();
    assert.ok(prompts.some((p) => p.name === 'simple-prompt'));
    const prompt = await connection.getPrompt({ name: 'args-prompt', arguments: { city: 'Oslo' } });
    assert.match(JSON.stringify(prompt.messages), /Oslo/);
  });
});

describe('UpstreamConnection over stdio with fixtures', () => {
  test('follows pagination cursors and keeps unknown fields', async (t) => {
    const connection = open(t, 'tools', fixtureParams('upstream-tools.ts'), quiet());
    const resources = await connection.listResources();
    assert.deepEqual(
      resources.map((r) => r.uri),
      Array.from({ length: 9 }, (_, i) => `test://r/${i}`),
    );
    const templates = await connection.listResourceTemplates();
    assert.deepEqual(templates, [
      { uriTemplate: 'test://t/{id}', name: 't', 'x-extra': { kept: true } },
    ]);
    assert.deepEqual(await connection.listPrompts(), [], 'no prompts capability → empty list');
  });

  test('forwards every progress step, also when the last one arrives with the result', async (t) => {
    const connection = open(t, 'burst', fixtureParams('upstream-burst.ts'), quiet());
    for (let round = 0; round < 5; round++) {
      const progress: Progress[] = [];
      const result = await connection.callTool(
        'burst',
        {},
        { onprogress: (p) => progress.push(p) },
      );
      assert.equal(firstText(result), 'done');
      assert.deepEqual(progress, [
        { progress: 1, total: 3 },
        { progress: 2, total: 3 },
        { progress: 3, total: 3 },
      ]);
    }
  });

  test('cancellation via AbortSignal reaches the upstream', async (t) => {
    const connection = open(t, 'tools', fixtureParams('upstream-tools.ts'), quiet());
    const controller = new AbortController();
    const call = connection.callTool(
      'sleep',
      { ms: 30_000 },
      { signal: controller.signal, onprogress: () => controller.abort('user pressed stop') },
    );
    await assert.rejects(call, {
      code: 'CANCELLED',
      message: "tools/call on upstream 'tools' was cancelled",
    });
    // The upstream saw notifications/cancelled: its handler's signal fired and it counted it.
    let count = '0';
    for (let i = 0; i < 100 && count === '0'; i++) {
      count = firstText(await connection.callTool('cancellations', {}));
      if (count === '0') await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(count, '1');
  });

  test('a per-request timeout gives a clear error and cancels the upstream call', async (t) => {
    const connection = open(t, 'tools', fixtureParams('upstream-tools.ts'), quiet());
    await assert.rejects(connection.callTool('sleep', { ms: 30_000 }, { timeout: 300 }), {
      code: 'REQUEST_TIMEOUT',
      message: "upstream 'tools' did not answer tools/call within 300 ms",
    });
    const result = await connection.callTool('whoami', {});
    assert.ok(jsonOf(result).pid, 'the connection stays usable');
  });

  test('expands ${VAR} placeholders at connect time only, from the env map', async (t) => {
    const env: Record<string, string> = {};
    const params = {
      ...fixtureParams('upstream-tools.ts', {
        SECRET_FOR_UPSTREAM: '${MY_SECRET}',
        WITH_DEFAULT: '${NOT_SET_ANYWHERE:-fallback}',
      }),
    };
    params.args = [...params.args, '--token=${MY_ARG}'];
    process.env.MCPBOX_PARENT_ONLY = 'do-not-inherit';
    t.after(() => {
      delete process.env.MCPBOX_PARENT_ONLY;
    });
    const connection = open(t, 'vars', params, { env, logger: recordingLogger() });
    // Set after construction: the values are read when connecting, not before.
    env.MY_SECRET = 's3cret-value';
    env.MY_ARG = 'arg-value';
    const secret = jsonOf(await connection.callTool('env', { name: 'SECRET_FOR_UPSTREAM' }));
    assert.deepEqual(secret, { SECRET_FOR_UPSTREAM: 's3cret-value' });
    const fallback = jsonOf(await connection.callTool('env', { name: 'WITH_DEFAULT' }));
    assert.deepEqual(fallback, { WITH_DEFAULT: 'fallback' });
    const who = jsonOf(await connection.callTool('whoami', {}));
    assert.deepEqual(who.argv, ['--token=arg-value']);
    // Our own environment does not leak into the child beyond the SDK's safe default set
    // (PATH, HOME, USER …). The child was started above, with this variable already set.
    const leaked = jsonOf(await connection.callTool('env', { name: 'MCPBOX_PARENT_ONLY' }));
    assert.deepEqual(leaked, { MCPBOX_PARENT_ONLY: null });
    const path = jsonOf(await connection.callTool('env', { name: 'PATH' }));
    assert.equal(path.PATH, process.env.PATH);
    // The stored params keep their placeholders.
    assert.ok('command' in connection.params);
    assert.equal(connection.params.args?.at(-1), '--token=${MY_ARG}');
    assert.equal(
      'env' in connection.params && connection.params.env?.SECRET_FOR_UPSTREAM,
      '${MY_SECRET}',
    );
  });

  test('an unset variable without default names the variable, not a value', async (t) => {
    const logger = recordingLogger();
    const connection = open(
      t,
      'github',
      { command: 'node', env: { TOKEN: '${GH_TOKEN_FOR_TEST}', OTHER: '${SET_ONE}' } },
      { env: { SET_ONE: 'visible-only-if-leaked' }, logger },
    );
    await assert.rejects(connection.listTools(), (error: Error & { code?: string }) => {
      assert.equal(error.code, 'EXPANSION_FAILED');
      assert.match(
        error.message,
        /^upstream 'github': env\.TOKEN: environment variable GH_TOKEN_FOR_TEST is not set/,
      );
      assert.doesNotMatch(error.message, /visible-only-if-leaked/);
      return true;
    });
    assert.equal(connection.starts, 0, 'nothing was started');
  });

  test('a command that does not exist fails at once, naming it', async (t) => {
    const connection = open(t, 'ghost', { command: 'no-such-mcp-server-xyz' }, quiet());
    await assert.rejects(connection.listTools(), {
      code: 'START_FAILED',
      message:
        "cannot start upstream 'ghost': command 'no-such-mcp-server-xyz' not found (searched PATH)",
    });
    const relative = open(t, 'ghost2', { command: './bin/missing-server', cwd: repoRoot }, quiet());
    await assert.rejects(relative.listTools(), {
      code: 'START_FAILED',
      message: "cannot start upstream 'ghost2': command './bin/missing-server' not found",
    });
    const badDir = open(t, 'ghost3', { command: 'node', cwd: '/no/such/dir' }, quiet());
    await assert.rejects(badDir.listTools(), {
      code: 'START_FAILED',
      message: "cannot start upstream 'ghost3': working directory '/no/such/dir' does not exist",
    });
  });

  test('an upstream that exits during start-up is reported with its last stderr', async (t) => {
    const connection = open(
      t,
      'crashy',
      { command: 'sh', args: ['-c', 'echo "config file missing" >&2; exit 3'] },
      quiet(),
    );
    await assert.rejects(connection.listTools(), {
      code: 'CONNECT_FAILED',
      message:
        "upstream 'crashy' exited before finishing initialize (its stderr: config file missing)",
    });
  });

  test('an upstream that hangs on initialize times out and is ended', async (t) => {
    const connection = open(t, 'hangs', fixtureParams('upstream-hangs.ts'), {
      connectTimeoutMs: 1500,
      killGraceSeconds: 0.3,
      logger: recordingLogger(),
    });
    t.after(() => killAll(pidsRunning(fixturePath('upstream-hangs.ts'))));
    await assert.rejects(connection.listTools(), {
      code: 'INITIALIZE_TIMEOUT',
      message: "upstream 'hangs' did not finish initialize within 1500 ms",
    });
    // connect() only rejects after the process (which ignores SIGTERM) was ended.
    assert.deepEqual(pidsRunning(fixturePath('upstream-hangs.ts')), []);
  });

  test('stderr lines and list_changed notifications reach the caller', async (t) => {
    const logger = recordingLogger();
    const changes: string[] = [];
    const connection = open(t, 'tools', fixtureParams('upstream-tools.ts'), {
      logger,
      onListChanged: (kind) => changes.push(kind),
    });
    await connection.callTool('add_tool', { name: 'late_tool' });
    const tools = await connection.listTools();
    assert.ok(tools.some((tool) => tool.name === 'late_tool'));
    assert.deepEqual(changes, ['tools']);
    assert.ok(logger.lines.some((line) => /^\[upstream tools\] upstream-tools ready/.test(line)));
  });
});

describe('UpstreamConnection process lifecycle', () => {
  test('an upstream killed mid-session is restarted by the next call', async (t) => {
    const logger = recordingLogger();
    const connection = open(t, 'tools', fixtureParams('upstream-tools.ts'), { logger });
    const first = jsonOf(await connection.callTool('whoami', {}));
    process.kill(first.pid, 'SIGKILL');
    for (let i = 0; i < 200 && connection.connected; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    assert.equal(connection.connected, false, 'the death was noticed');
    const second = jsonOf(await connection.callTool('whoami', {}));
    assert.notEqual(second.pid, first.pid);
    assert.equal(connection.starts, 2);
    assert.ok(
      logger.lines.some(
        (l) =>
          l ===
          "restarting upstream 'tools': " +
            [process.execPath, ...fixtureParams('upstream-tools.ts').args].join(' '),
      ),
    );
  });

  test('an upstream that exits mid-call: clear error, then restart on the next call', async (t) => {
    const connection = open(t, 'tools', fixtureParams('upstream-tools.ts'), quiet());
    const first = jsonOf(await connection.callTool('whoami', {}));
    await assert.rejects(connection.callTool('exit', { code: 1 }), {
      code: 'CONNECTION_CLOSED',
      message:
        "upstream 'tools' is not running (it stopped during tools/call); it will be restarted on the next call",
    });
    const second = jsonOf(await connection.callTool('whoami', {}));
    assert.notEqual(second.pid, first.pid);
  });

  test('close() ends the upstream, its process group and grandchildren, even if it ignores SIGTERM', {
    skip: !processGroupGuardAvailable() && 'needs util-linux setpriv and setsid',
  }, async (t) => {
    const connection = open(
      t,
      'stubborn',
      fixtureParams('upstream-tools.ts', { UPSTREAM_STUBBORN: '1' }),
      {
        killGraceSeconds: 0.3,
        logger: recordingLogger(),
      },
    );
    const who = jsonOf(await connection.callTool('whoami', {}));
    const grandchild = jsonOf(await connection.callTool('spawn_grandchild', {})).pid;
    assert.equal(who.pgid, who.pid, 'the upstream leads its own process group');
    const guard = connection.pid!;
    const pids = [guard, ...descendants(guard)];
    assert.ok(pids.includes(who.pid) && pids.includes(grandchild));
    await connection.close();
    assert.deepEqual(await waitUntilGone(pids, 10_000), []);
    await connection.close(); // idempotent
    await assert.rejects(connection.callTool('whoami', {}), { code: 'CLOSED' });
  });

  test('an owner killed with SIGKILL takes its upstream and the upstream’s children with it', {
    skip: !processGroupGuardAvailable() && 'needs util-linux setpriv and setsid',
  }, async (t) => {
    const owner = spawn(process.execPath, ['--import', 'tsx', fixturePath('upstream-owner.ts')], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const pids: number[] = [];
    t.after(() => {
      owner.kill('SIGKILL');
      killAll(pids);
    });
    const [line] = (await once(createInterface({ input: owner.stdout! }), 'line')) as [string];
    const started = JSON.parse(line) as Record<string, number>;
    pids.push(started.guard, ...descendants(started.guard));
    assert.ok(pids.includes(started.server) && pids.includes(started.grandchild));
    assert.ok(pids.every(isAlive));
    owner.kill('SIGKILL');
    await once(owner, 'exit');
    assert.deepEqual(await waitUntilGone(pids, 15_000), [], 'nothing of the upstream survives');
  });
});
