/**
 * Other MCP servers as plugins, in a real proxy process: the npm `server-everything` mirrored over
 * stdio and over Streamable HTTP (a second real process), schemas unchanged, calls and prefixes;
 * unload ending the upstream; and bad entries — a command that does not exist, a server that
 * never answers `initialize` — each failing clearly while the proxy keeps serving. And a
 * 2026-only upstream (SDK v2, legacy rejected) over stdio and HTTP: mirrored, its elicitation
 * answered by a 2026 client, its list change re-published to a 2025 client.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startModernHttp } from '@mcpbox/framework/testing';
// The upstream engineer's /proc helpers, shared rather than copied.
import {
  descendants,
  freePort,
  killAll,
  REPO_ROOT,
  startProxy,
  stopGroup,
  waitUntilGone,
} from '@mcpbox/test-utils';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { testdir } from './__fixtures__/testdir.ts';

const EVERYTHING = join(REPO_ROOT, 'node_modules/.bin/mcp-server-everything');
const HANGS = join(REPO_ROOT, 'packages/framework/src/__fixtures__/upstream-hangs.ts');
const MODERN = join(REPO_ROOT, 'packages/framework/src/__fixtures__/upstream-modern.ts');

/** server-everything over Streamable HTTP on a free port, in its own process group. */
async function startEverythingHttp(t: { after(fn: () => unknown): void }): Promise<string> {
  const port = await freePort();
  const child = spawn(EVERYTHING, ['streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  t.after(async () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {}
    if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
  });
  const url = `http://127.0.0.1:${port}/mcp`;
  for (let i = 0; i < 300; i++) {
    try {
      await fetch(url, { method: 'GET', signal: AbortSignal.timeout(500) });
      return url;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error('server-everything over HTTP did not start');
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

async function directTools(): Promise<Map<string, unknown>> {
  const client = new Client({ name: 'direct', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({ command: EVERYTHING, args: ['stdio'], stderr: 'ignore' }),
  );
  try {
    return new Map((await client.listTools()).tools.map((tool) => [tool.name, tool.inputSchema]));
  } finally {
    await client.close();
  }
}

async function rest(port: number, path: string, plugin: string) {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ plugin }),
  });
  return {
    status: response.status,
    body: (await response.json()) as { ok: boolean; error?: string; tools?: string[] },
  };
}

test('server-everything mirrored over stdio and HTTP; bad upstreams fail clearly', async (t) => {
  const httpUrl = await startEverythingHttp(t);
  const dir = testdir(
    {
      'proxy.yaml': [
        'auto_prefix: true',
        'autoload: [everything]',
        'plugins:',
        '  everything:',
        `    command: ${JSON.stringify(EVERYTHING)}`,
        '    args: [stdio]',
        '  remote:',
        `    url: ${httpUrl}`,
        '  missing:',
        '    command: /nonexistent/mcp-server',
        '  hangs:',
        `    command: ${JSON.stringify(process.execPath)}`,
        `    args: [--import, tsx, ${JSON.stringify(HANGS)}]`,
        `    cwd: ${JSON.stringify(REPO_ROOT)}`,
        '    connect_timeout: 3',
        '',
      ].join('\n'),
    },
    t,
  );
  const proxy = await startProxy(
    ['--http', '0', '--mgmt-port', '0', '-c', join(dir, 'proxy.yaml')],
    {
      env: { HOME: dir },
    },
  );
  t.after(() => proxy.stop());
  // The hung upstream must be ended by the proxy (asserted below); should that fail, end it here
  // by the pid it logs, so no process outlives the test.
  const hungPids = () =>
    [...proxy.stderr().matchAll(/upstream-hangs waiting \(pid (\d+)\)/g)].map(([, pid]) =>
      Number(pid),
    );
  t.after(() => killAll(hungPids()));
  const client = new Client({ name: 'upstream-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(proxy.mcpUrl!)));
  t.after(() => client.close());

  // Mirrored tools carry the plugin prefix and the upstream's JSON Schema unchanged.
  const direct = await directTools();
  const listed = new Map(
    (await client.listTools()).tools.map((tool) => [tool.name, tool.inputSchema]),
  );
  // (server-everything adds a few tools some time after start-up, so compare what both have.)
  const mirrored = [...listed.keys()].filter((name) => name.startsWith('everything_'));
  assert.ok(mirrored.length > 3 && mirrored.includes('everything_echo'), mirrored.join(', '));
  for (const name of mirrored) {
    const upstreamName = name.slice('everything_'.length);
    if (direct.has(upstreamName))
      assert.deepEqual(listed.get(name), direct.get(upstreamName), name);
  }
  const echo = await client.callTool({
    name: 'everything_echo',
    arguments: { message: 'via stdio' },
  });
  assert.match((echo.content as Array<{ text: string }>)[0].text, /via stdio/);

  // A second copy of the same server collides on its resource URIs (resources are not prefixed).
  const clash = await rest(proxy.mgmtPort, '/proxy/load', 'remote');
  assert.equal(clash.status, 400);
  assert.match(
    clash.body.error ?? '',
    /^Resource collision loading 'remote': \S+ \(in 'everything'\)$/,
  );

  // Bad upstreams: a clear error each, nothing registered.
  const missing = await rest(proxy.mgmtPort, '/proxy/load', 'missing');
  assert.equal(missing.status, 400);
  assert.match(missing.body.error ?? '', /\/nonexistent\/mcp-server/);
  const hangs = await rest(proxy.mgmtPort, '/proxy/load', 'hangs');
  assert.equal(hangs.status, 400);
  assert.match(hangs.body.error ?? '', /upstream 'hangs' did not finish initialize within 3000 ms/);
  // It ignores SIGTERM: the process-group guard's SIGKILL, after the 2 s grace, ends it.
  const hung = hungPids();
  assert.equal(hung.length, 1, proxy.stderr());
  assert.equal(
    await signalZeroUntilGone(hung[0]!, 15_000),
    'ESRCH',
    'the hung upstream is still running',
  );

  // A reload of a mirror reconnects and keeps it serving.
  assert.equal((await rest(proxy.mgmtPort, '/proxy/reload', 'everything')).status, 200);
  const afterReload = await client.callTool({
    name: 'everything_echo',
    arguments: { message: 'reloaded' },
  });
  assert.match((afterReload.content as Array<{ text: string }>)[0].text, /reloaded/);

  const everythingPids = () =>
    descendants(proxy.child.pid!).filter((pid) => cmdline(pid).includes('mcp-server-everything'));

  // The upstream dies: a call that races the proxy noticing gets a clear error saying so, and
  // the next call starts the upstream again.
  const crashed = everythingPids();
  for (const pid of crashed) process.kill(pid, 'SIGKILL');
  assert.deepEqual(await waitUntilGone(crashed), []);
  const echoBack = async () => {
    const result = await client.callTool({
      name: 'everything_echo',
      arguments: { message: 'back' },
    });
    return { text: (result.content as Array<{ text: string }>)[0].text, isError: result.isError };
  };
  let afterCrash = await echoBack();
  if (afterCrash.isError) {
    assert.match(
      afterCrash.text,
      /upstream 'everything' is not running .* restarted on the next call/,
    );
    afterCrash = await echoBack();
  }
  assert.notEqual(afterCrash.isError, true, afterCrash.text);
  assert.match(afterCrash.text, /back/);

  // Unload closes the mirror — its process ends; then the HTTP upstream loads on demand.
  const upstreamPids = everythingPids();
  assert.ok(upstreamPids.length > 0);
  assert.equal((await rest(proxy.mgmtPort, '/proxy/unload', 'everything')).status, 200);
  assert.deepEqual(await waitUntilGone(upstreamPids), []);
  const remote = await rest(proxy.mgmtPort, '/proxy/load', 'remote');
  assert.equal(remote.status, 200, remote.body.error);
  const names = (await client.listTools()).tools.map((tool) => tool.name);
  assert.ok(names.includes('remote_echo'));
  assert.ok(!names.some((name) => name.startsWith('everything_')));
  const viaHttp = await client.callTool({
    name: 'remote_echo',
    arguments: { message: 'via http' },
  });
  assert.match((viaHttp.content as Array<{ text: string }>)[0].text, /via http/);
  assert.equal((await rest(proxy.mgmtPort, '/proxy/unload', 'remote')).status, 200);
  // server-everything announces a tools change right after every connect (start, reload,
  // restart): none of them changed what is mirrored, so none is reported (issue 15, item 11).
  assert.doesNotMatch(proxy.stderr(), /changed its tools/);
});

/** `kill(pid, 0)` until it fails (a zombie still answers, so this waits for the reaping too). */
async function signalZeroUntilGone(pid: number, limitMs: number): Promise<string | undefined> {
  const until = Date.now() + limitMs;
  while (Date.now() < until) {
    try {
      process.kill(pid, 0);
    } catch (error) {
      return (error as NodeJS.ErrnoException).code;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return undefined;
}

test('a 2026-only upstream mirrored over stdio and HTTP: called, its questions answered, its changes re-published', async (t) => {
  const { child: httpUpstream, url: httpUrl } = await startModernHttp();
  t.after(() => stopGroup(httpUpstream));
  const dir = testdir(
    {
      'proxy.yaml': [
        'auto_prefix: true',
        'autoload: [modern]',
        'plugins:',
        '  modern:',
        `    command: ${JSON.stringify(process.execPath)}`,
        `    args: [--import, tsx, ${JSON.stringify(MODERN)}]`,
        `    cwd: ${JSON.stringify(REPO_ROOT)}`,
        '  modernhttp:',
        `    url: ${httpUrl}`,
        '',
      ].join('\n'),
    },
    t,
  );
  const proxy = await startProxy(
    ['--http', '0', '--mgmt-port', '0', '-c', join(dir, 'proxy.yaml')],
    { env: { HOME: dir } },
  );
  t.after(() => proxy.stop());
  const upstreams = () =>
    descendants(proxy.child.pid!).filter((pid) => cmdline(pid).includes('upstream-modern.ts'));
  t.after(() => killAll(upstreams()));

  // A 2026 client: its elicitation answer reaches the upstream through input_required rounds.
  const modern = new Client(
    { name: 'modern', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'auto' } },
  );
  modern.setRequestHandler('elicitation/create', async () => ({
    action: 'accept',
    content: { ok: true },
  }));
  await modern.connect(new StreamableHTTPClientTransport(new URL(proxy.mcpUrl!)));
  t.after(() => modern.close());
  const text = (result: { content?: unknown }) =>
    (result.content as Array<{ text: string }>)[0].text;
  assert.equal(
    text(await modern.callTool({ name: 'modern_echo', arguments: { text: 'via proxy' } })),
    'echo: via proxy',
  );
  assert.equal(
    text(await modern.callTool({ name: 'modern_confirm', arguments: { action: 'ship' } })),
    'ship: accept {"ok":true}',
  );

  // A 2025 client hears about the upstream's new tool, and can call it.
  const legacy = new Client({ name: 'legacy', version: '1.0.0' });
  let told = 0;
  legacy.setNotificationHandler('notifications/tools/list_changed', async () => {
    told += 1;
  });
  await legacy.connect(new StreamableHTTPClientTransport(new URL(proxy.mcpUrl!)));
  t.after(() => legacy.close());
  await legacy.callTool({ name: 'modern_add_tool', arguments: { name: 'late' } });
  let names: string[] = [];
  for (let i = 0; i < 200 && !names.includes('modern_late'); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    names = (await legacy.listTools()).tools.map((tool) => tool.name);
  }
  assert.ok(names.includes('modern_late'), names.join(', '));
  assert.ok(told > 0, 'list_changed reached the 2025 client');
  assert.equal(text(await legacy.callTool({ name: 'modern_late', arguments: {} })), 'late');
  assert.doesNotMatch(proxy.stderr(), /changed its tools.*reload plugin/);

  // The same server over HTTP loads on demand and serves.
  const loaded = await rest(proxy.mgmtPort, '/proxy/load', 'modernhttp');
  assert.equal(loaded.status, 200, loaded.body.error);
  assert.equal(
    text(await legacy.callTool({ name: 'modernhttp_echo', arguments: { text: 'over http' } })),
    'echo: over http',
  );

  const pids = upstreams();
  assert.equal((await rest(proxy.mgmtPort, '/proxy/unload', 'modern')).status, 200);
  assert.deepEqual(await waitUntilGone(pids), [], 'unload ended the stdio upstream');
});
