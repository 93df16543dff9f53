/**
 * `mcp-client call` and `mcp-client inspect` through the real bin: against mcp-factory over
 * stdio in both protocol eras and over Streamable HTTP, and against server-everything. A fixture
 * plugin records every call in a file, so "nothing was called" on bad arguments is checked, not
 * assumed.
 */

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { freePort, textOf } from '@mcpbox/test-utils';
import {
  clientBin,
  everythingBin,
  killGroup,
  repoRoot,
  startEverythingHttp,
} from './__fixtures__/driveClient.ts';

const factoryBin = join(repoRoot, 'packages/proxy/bin/mcp-factory.js');

const CALC_PLUGIN = `
import { appendFileSync } from 'node:fs';
export const description = 'mcp-client call test fixture';
export function register(server) {
  server.registerTool('calc', {
    description: 'Returns its arguments as JSON and records the call.',
    inputSchema: {
      type: 'object',
      properties: {
        count: { type: 'integer', minimum: 0 },
        loud: { type: 'boolean' },
        tags: { type: 'array', items: { type: 'string' } },
        opts: { type: 'object' },
        name: { type: 'string' },
      },
      required: ['count'],
      additionalProperties: false,
    },
  }, (args) => {
    appendFileSync(process.env.CALC_LOG, JSON.stringify(args) + '\\n');
    return JSON.stringify(args);
  });
  server.registerTool('sleep', { description: 'Never answers in time.', inputSchema: { type: 'object', properties: {} } }, async () => {
    await new Promise((resolve) => setTimeout(resolve, 120000).unref());
    return 'late';
  });
  server.registerTool('fail', { description: 'Always fails.', inputSchema: { type: 'object', properties: {} } }, () => {
    throw new Error('boom on purpose');
  });
}
`;

interface Fixture {
  /** The server command line after `--`. */
  server: string[];
  env: NodeJS.ProcessEnv;
  /** The arguments of every call `calc` received. */
  calls(): unknown[];
}

function calcFixture(t: TestContext): Fixture {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-client-oneshot-'));
  t.after(() => rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 }));
  const plugin = join(dir, 'calc.mjs');
  writeFileSync(plugin, CALC_PLUGIN);
  const log = join(dir, 'calls.jsonl');
  return {
    server: [process.execPath, factoryBin, '-p', plugin, '--log-level', 'error'],
    // HOME: mcp-factory writes its tool-call log below it.
    env: { ...process.env, CALC_LOG: log, HOME: dir },
    calls: () =>
      existsSync(log)
        ? readFileSync(log, 'utf8')
            .trim()
            .split('\n')
            .map((line) => JSON.parse(line))
        : [],
  };
}

/**
 * Pinned where the era does not matter: negotiating over stdio starts the server twice (the
 * SDK's probe), which a loaded test machine feels.
 */
const legacy = ['--protocol', '2025-11-25'];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

async function mcpClient(t: TestContext, args: string[], env = process.env): Promise<Run> {
  const child = spawn(process.execPath, [clientBin, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  t.after(() => killGroup(child));
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  const [code] = await once(child, 'exit');
  return { code: code as number | null, stdout, stderr };
}

for (const protocol of ['2025-11-25', '2026-07-28'] as const) {
  test(`call over stdio (${protocol}): --arg values typed by the schema, result as JSON`, async (t) => {
    const fx = calcFixture(t);
    const run = await mcpClient(
      t,
      [
        'call',
        'calc',
        '--arg',
        'count=3',
        '--arg',
        'loud=yes',
        '--arg',
        'tags=["a","b"]',
        '--arg',
        'opts={"x":1}',
        '--arg',
        'name=42',
        '--protocol',
        protocol,
        '--',
        ...fx.server,
      ],
      fx.env,
    );
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    const expected = { count: 3, loud: true, tags: ['a', 'b'], opts: { x: 1 }, name: '42' };
    assert.deepEqual(JSON.parse(textOf(result)), expected);
    assert.equal(result.isError, undefined);
    assert.deepEqual(fx.calls(), [expected]);
  });

  test(`call over stdio (${protocol}): a tool error prints the result and exits 1`, async (t) => {
    const fx = calcFixture(t);
    const run = await mcpClient(
      t,
      ['call', 'fail', '--protocol', protocol, '--', ...fx.server],
      fx.env,
    );
    assert.equal(run.code, 1, run.stderr);
    const result = JSON.parse(run.stdout);
    assert.equal(result.isError, true);
    assert.match(textOf(result), /boom on purpose/);
    assert.match(
      run.stderr,
      /mcp-client call: "fail" answered with an error \(isError\): .*boom on purpose/,
    );
  });
}

test('call: arguments that do not match the schema exit 2, name the parameter, call nothing', async (t) => {
  const fx = calcFixture(t);
  // One of each kind through the bin (typing a value, the schema as a whole, a missing
  // parameter); callArguments.test.ts has the rest.
  const cases: [string[], RegExp][] = [
    [['--arg', 'count=abc'], /--arg count: expected a number, got "abc"/],
    [['--arg', 'loud=true'], /missing required parameter "count" \(integer\): add --arg count=…/],
    [
      ['--json', '{"count": -1, "tags": "x"}'],
      /do not match the input schema of "calc": parameter "count" must be >= 0; parameter "tags" must be array/,
    ],
  ];
  for (const [args, message] of cases) {
    const run = await mcpClient(
      t,
      ['call', 'calc', ...args, ...legacy, '--', ...fx.server],
      fx.env,
    );
    assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, message);
    assert.match(run.stderr, /parameters of "calc": count \(integer, required\), loud \(boolean\)/);
    assert.match(run.stderr, /Nothing was called\./);
    assert.equal(run.stdout, '');
  }
  assert.deepEqual(fx.calls(), []);
});

test('call: --json with --arg on top, an unknown tool, and command-line mistakes', async (t) => {
  const fx = calcFixture(t);
  const merged = await mcpClient(
    t,
    [
      'call',
      'calc',
      '--json',
      '{"count": 1, "name": "a"}',
      '--arg',
      'name=b',
      ...legacy,
      '--',
      ...fx.server,
    ],
    fx.env,
  );
  assert.equal(merged.code, 0, merged.stderr);
  assert.deepEqual(fx.calls(), [{ count: 1, name: 'b' }]);

  const unknown = await mcpClient(t, ['call', 'nope', ...legacy, '--', ...fx.server], fx.env);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /the server has no tool "nope" \(its tools: calc, fail, sleep\)/);

  const slow = await mcpClient(
    t,
    ['call', 'sleep', '--timeout', '1', ...legacy, '--', ...fx.server],
    fx.env,
  );
  assert.equal(slow.code, 1);
  assert.match(slow.stderr, /mcp-client call: calling "sleep" failed: .*timed out/i);
  assert.equal(slow.stdout, '');

  // Refused before any server starts: these name no server that exists.
  const noServer = ['--', '/nonexistent/server', 'arg'];
  for (const [args, message] of [
    [['call', 'calc', '--arg', 'count'], /--arg takes NAME=VALUE, got "count"/],
    [['call', 'calc', '--json', '{oops'], /--json is not valid JSON/],
    [['call', 'calc', '--json', '[1]'], /--json must be a JSON object of arguments, got \[1\]/],
    [['call'], /give the tool before --/],
    [['call', 'calc', '--timeout', '0'], /--timeout.*expected a number of seconds greater than 0/],
  ] as [string[], RegExp][]) {
    const run = await mcpClient(t, [...args, ...noServer]);
    assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, message);
  }
  const missing = await mcpClient(t, ['call', 'calc']);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /missing required argument 'server'/);
});

test('call: a server that cannot be reached exits 1 with the reason', async (t) => {
  const port = await freePort();
  const run = await mcpClient(t, ['call', 'echo', `http://127.0.0.1:${port}/mcp`]);
  assert.equal(run.code, 1);
  assert.match(run.stderr, /mcp-client call: could not connect: .*ECONNREFUSED/);
  assert.equal(run.stdout, '');
});

test('call and inspect over Streamable HTTP against server-everything', async (t) => {
  const port = await freePort();
  await startEverythingHttp(t, 'streamableHttp', port);
  const url = `http://127.0.0.1:${port}/mcp`;
  const sum = await mcpClient(t, ['call', 'get-sum', '--arg', 'a=2', '--arg', 'b=40', url]);
  assert.equal(sum.code, 0, sum.stderr);
  assert.match(textOf(JSON.parse(sum.stdout)), /The sum of 2 and 40 is 42\./);

  const bad = await mcpClient(t, ['call', 'get-sum', '--json', '{"a": "two", "b": 40}', url]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /parameter "a" must be number/);

  const inspect = await mcpClient(t, ['inspect', url]);
  assert.equal(inspect.code, 0, inspect.stderr);
  const report = JSON.parse(inspect.stdout);
  assert.equal(report.serverInfo.name, 'mcp-servers/everything');
  assert.equal(report.transport, `Streamable HTTP ${url}`);
  assert.ok(report.tools.some((tool: { name: string }) => tool.name === 'get-sum'));
  assert.ok(report.resources.length > 0);
  assert.ok(
    report.resourceTemplates.some((r: { uriTemplate: string }) =>
      r.uriTemplate.startsWith('demo://resource/dynamic/text/'),
    ),
  );
  assert.ok(report.prompts.some((p: { name: string }) => p.name === 'args-prompt'));
  assert.ok(report.capabilities.tools);
});

/** mcp-factory over Streamable HTTP on a free port; resolves with its MCP URL. */
async function factoryHttp(t: TestContext, fx: Fixture): Promise<string> {
  const [node, bin, ...args] = fx.server;
  const child = spawn(node!, [bin!, ...args, '--http', '0', '--health-port', '0'], {
    env: fx.env,
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  t.after(() => killGroup(child));
  let log = '';
  child.stderr.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (d: string) => {
      log += d;
      const url = /MCP endpoint:\s+(\S+)/.exec(log)?.[1];
      if (url) resolve(url);
    });
    child.once('exit', (code) => reject(new Error(`mcp-factory exited ${code}: ${log}`)));
  });
}

test('call and inspect over Streamable HTTP in the 2026-07-28 era (mcp-factory)', async (t) => {
  const fx = calcFixture(t);
  const url = await factoryHttp(t, fx);
  const modern = ['--protocol', '2026-07-28'];
  const call = await mcpClient(t, ['call', 'calc', '--arg', 'count=9', ...modern, url]);
  assert.equal(call.code, 0, call.stderr);
  assert.deepEqual(JSON.parse(textOf(JSON.parse(call.stdout))), { count: 9 });
  const failed = await mcpClient(t, ['call', 'fail', ...modern, url]);
  assert.equal(failed.code, 1);
  assert.equal(JSON.parse(failed.stdout).isError, true);
  const inspect = await mcpClient(t, ['inspect', ...modern, url]);
  assert.equal(inspect.code, 0, inspect.stderr);
  const report = JSON.parse(inspect.stdout);
  assert.deepEqual([report.protocolVersion, report.era], ['2026-07-28', 'modern']);
  assert.equal(report.transport, `Streamable HTTP ${url}`);
  assert.deepEqual(fx.calls(), [{ count: 9 }]);
});

for (const [protocol, era] of [
  ['2025-11-25', 'legacy'],
  ['2026-07-28', 'modern'],
] as const) {
  test(`inspect over stdio (${protocol}): server, era, capabilities and lists as JSON`, async (t) => {
    const fx = calcFixture(t);
    const run = await mcpClient(t, ['inspect', '--protocol', protocol, '--', ...fx.server], fx.env);
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout);
    assert.deepEqual(report.serverInfo, { name: 'mcp-factory', version: '0.1.0' });
    assert.equal(report.protocolVersion, protocol);
    assert.equal(report.era, era);
    assert.match(report.transport, /^stdio \(/);
    assert.deepEqual(
      report.tools.map((tool: { name: string }) => tool.name),
      ['calc', 'fail', 'sleep'],
    );
    assert.deepEqual(report.tools[0].inputSchema.required, ['count']);
    assert.deepEqual([report.resources, report.resourceTemplates, report.prompts], [[], [], []]);
    assert.ok(report.capabilities.tools);
    assert.equal(report.errors, undefined);
  });
}

test('inspect against server-everything over stdio', async (t) => {
  const run = await mcpClient(t, ['inspect', '--quiet-server', '--', everythingBin, 'stdio']);
  assert.equal(run.code, 0, run.stderr);
  const report = JSON.parse(run.stdout);
  assert.match(report.instructions, /Everything Server/);
  assert.ok(report.tools.length > 5);
  assert.ok(report.prompts.length > 0);
});
