// biome-ignore-all lint/suspicious/noTemplateCurlyInString: config text with ${VAR} placeholders
/**
 * mcp-factory end to end: the real bin as a child process, the real SDK client over real stdio
 * pipes and real HTTP, the repository's demo plugins, and plugin fixtures written to temp dirs.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { removeAtExit, spawnTiedToTest } from '@mcpbox/test-utils';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const BIN = fileURLToPath(new URL('../../../bin/mcp-factory.js', import.meta.url));

/** A temp plugin folder (an ES-module package, as plugin folders are), removed after the test. */
function testdir(t: TestContext, files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-factory-'));
  t.after(() => rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 }));
  const all = { 'package.json': '{ "type": "module" }', ...files };
  for (const [name, text] of Object.entries(all)) writeFileSync(join(dir, name), text);
  return dir;
}

/**
 * A scratch HOME for a server the test starts: mcp-factory writes its tool-call log to
 * `~/.mcp_proxy/logs` by default, and a test must not write into the real one.
 */
function scratchHome(t: TestContext): NodeJS.ProcessEnv {
  const home = removeAtExit(mkdtempSync(join(tmpdir(), 'mcp-factory-home-')));
  // Retried: a server killed a moment ago may still be writing its log there.
  t.after(() => rmSync(home, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 }));
  return { ...process.env, HOME: home };
}

/** Runs the bin to completion (for the failure paths). */
async function runBin(args: string[], cwd?: string) {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => {
    stdout += c;
  });
  child.stderr.on('data', (c) => {
    stderr += c;
  });
  const [code] = await once(child, 'exit');
  return { code: code as number | null, stdout, stderr };
}

/** Starts the bin in HTTP mode; resolves once `pattern` appears on stderr. */
async function startHttp(t: TestContext, args: string[], pattern = /MCP endpoint:\s+(\S+)/) {
  const child = spawnTiedToTest(process.execPath, [BIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: scratchHome(t),
  });
  t.after(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGKILL');
    await once(child, 'exit');
  });
  const output = { stderr: '', stdout: '' };
  child.stdout.on('data', (c) => {
    output.stdout += c;
  });
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    child.stderr.on('data', (c) => {
      output.stderr += c;
      const found = pattern.exec(output.stderr);
      if (found) resolve(found);
    });
    child.once('exit', (code) =>
      reject(new Error(`mcp-factory exited ${code}:\n${output.stderr}`)),
    );
  });
  return { child, match, output };
}

async function stdioClient(t: TestContext, args: string[]) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, ...args],
    stderr: 'pipe',
    // MCPBOX_BIN passed on: the sources, as every test runs them (scripts/run-tests.mjs).
    env: { HOME: scratchHome(t).HOME as string, MCPBOX_BIN: process.env.MCPBOX_BIN ?? 'dist' },
  });
  let stderr = '';
  transport.stderr?.on('data', (c) => {
    stderr += c;
  });
  const client = new Client({ name: 'factory-test', version: '1.0.0' });
  await client.connect(transport);
  t.after(() => client.close());
  return { client, transport, stderr: () => stderr };
}

const text = (result: unknown) =>
  (result as { content: Array<{ text: string }> }).content.map((c) => c.text).join('');

/** What every transport must serve from the three demo plugins. */
async function exerciseDemoPlugins(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((tool) => tool.name).sort(), [
    'demo_text_stats',
    'echo',
    'echo_upper',
    'greet',
  ]);
  assert.equal(
    text(await client.callTool({ name: 'echo', arguments: { message: 'hi there' } })),
    'hi there',
  );
  assert.equal(
    text(await client.callTool({ name: 'echo_upper', arguments: { message: 'hi' } })),
    'HI',
  );
  assert.equal(
    text(await client.callTool({ name: 'greet', arguments: { name: 'Ada' } })),
    'Hello, Ada!',
  );

  const stats = await client.callTool({ name: 'demo_text_stats', arguments: { text: 'a b a\nc' } });
  assert.equal(text(stats), '4 words, 2 lines, 7 characters');
  assert.deepEqual(stats.structuredContent, {
    characters: 7,
    words: 4,
    lines: 2,
    top_words: [
      { word: 'a', count: 2 },
      { word: 'b', count: 1 },
      { word: 'c', count: 1 },
    ],
  });

  const { resources } = await client.listResources();
  assert.deepEqual(
    resources.map((r) => r.uri),
    ['demo://status'],
  );
  const status = await client.readResource({ uri: 'demo://status' });
  assert.equal(JSON.parse((status.contents[0] as { text: string }).text).tool_calls, 1);

  const { prompts } = await client.listPrompts();
  assert.deepEqual(
    prompts.map((p) => p.name),
    ['demo_summarize'],
  );
  const prompt = await client.getPrompt({
    name: 'demo_summarize',
    arguments: { text: 'Long text.', style: 'one sentence' },
  });
  assert.deepEqual(prompt.messages[0].content, {
    type: 'text',
    text: 'Summarize the following text as one sentence:\n\nLong text.',
  });

  // Bad input is an error naming the field; the server stays up.
  const bad = await client.callTool({ name: 'greet', arguments: { name: 42 } });
  assert.equal(bad.isError, true);
  assert.match(text(bad), /name/);
  assert.equal(
    text(await client.callTool({ name: 'echo', arguments: { message: 'still up' } })),
    'still up',
  );
}

test('stdio: the demo plugins serve tools, a resource and a prompt; logs stay off stdout', async (t) => {
  const { client, transport, stderr } = await stdioClient(t, ['-p', 'echo', 'greet', 'demo_full']);
  await exerciseDemoPlugins(client);
  assert.match(
    stderr(),
    /serving 3 plugins \(echo, greet, demo_full\): 4 tools, 1 resource, 1 prompt over stdio/,
  );
  const pid = transport.pid!;
  await client.close();
  // Closing stdin ends the server process.
  for (let i = 0; i < 100 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(isAlive(pid), false, 'mcp-factory should exit when its client goes away');
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('--http: prints the URL and client configs, serves MCP, health counters move', async (t) => {
  const { child, match, output } = await startHttp(t, [
    '--http',
    '0',
    '-p',
    'echo',
    'greet',
    'demo_full',
  ]);
  const url = new URL(match[1]);
  assert.equal(url.hostname, '127.0.0.1');
  assert.equal(url.pathname, '/mcp');
  await new Promise((r) => setTimeout(r, 200)); // let the rest of the banner arrive
  const healthUrl = /Health:\s+(\S+)\/health/.exec(output.stderr)?.[1];
  assert.ok(healthUrl, output.stderr);
  assert.ok(
    output.stderr.includes(
      JSON.stringify({ mcpServers: { 'mcp-factory': { url: url.href } } }, null, 2),
    ),
    output.stderr,
  );
  assert.match(
    output.stderr,
    /"command": ".*node.*",\s+"args": \[\s+".*mcp-factory\.js",\s+"-p",\s+"echo"/,
  );
  assert.equal(output.stdout, '');

  const get = async (path: string) => {
    const response = await fetch(`${healthUrl}${path}`);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const before = await get('/health/detailed');
  assert.equal(before.body.requests, 0);
  assert.equal(before.body.last_request, null);
  assert.equal((await get('/health/ready')).status, 200);

  const client = new Client({ name: 'factory-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url));
  t.after(() => client.close());
  await exerciseDemoPlugins(client);

  const after = await get('/health/detailed');
  assert.ok((after.body.requests as number) >= 11, `requests: ${after.body.requests}`);
  assert.ok((after.body.connections as number) >= 1);
  assert.ok((after.body.errors as number) >= 1, 'the invalid greet call counts as an error');
  assert.ok(!Number.isNaN(Date.parse(after.body.last_request as string)));

  const plugins = (await get('/health/plugins')).body as {
    plugins: Array<{ name: string; tools: string[]; resources: string[]; prompts: string[] }>;
  };
  assert.deepEqual(
    plugins.plugins.map((p) => [p.name, p.tools, p.resources, p.prompts]),
    [
      ['echo', ['echo', 'echo_upper'], [], []],
      ['greet', ['greet'], [], []],
      ['demo_full', ['demo_text_stats'], ['demo://status'], ['demo_summarize']],
    ],
  );

  await client.close();
  child.kill('SIGTERM');
  const [code] = await once(child, 'exit');
  assert.equal(code, 0);
  assert.match(output.stderr, /shutting down \(SIGTERM\)/);
});

test('/health/ready is 503 while plugins load, then 200', async (t) => {
  const dir = testdir(t, {});
  const marker = join(dir, 'go');
  writeFileSync(
    join(dir, 'slow.ts'),
    `import { existsSync } from 'node:fs';
     export async function register(server) {
       while (!existsSync(${JSON.stringify(marker)})) await new Promise((r) => setTimeout(r, 20));
       server.registerTool('slow_ready', { description: 'ready' }, () => 'ok');
     }`,
  );
  const { match } = await startHttp(
    t,
    ['--http', '0', '-d', dir, '-p', 'slow'],
    /health endpoints at (\S+)\/health/,
  );
  const ready = `${match[1]}/health/ready`;
  const first = await fetch(ready);
  assert.equal(first.status, 503);
  assert.deepEqual(await first.json(), { ready: false, error: 'loading plugins: slow' });
  writeFileSync(marker, '');
  let status = 503;
  for (let i = 0; i < 200 && status !== 200; i++) {
    status = (await fetch(ready)).status;
    if (status !== 200) await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(status, 200);
});

test('no plugins: exit 1 with a clear message and no stack', async () => {
  const result = await runBin([]);
  assert.equal(result.code, 1);
  assert.equal(result.stderr, 'Error: No plugins specified (use --plugins or config)\n');
  assert.equal(result.stdout, '');
});

test('a missing plugin: "not found" listing where it looked', async (t) => {
  const dir = testdir(t, {});
  const result = await runBin(['-d', dir, '-p', 'nosuchplugin']);
  assert.equal(result.code, 1);
  const repoPlugins = fileURLToPath(new URL('../../../../../plugins', import.meta.url));
  assert.ok(
    result.stderr.includes(
      `Error: No plugins loaded successfully:\n  Plugin 'nosuchplugin' not found (looked in: ${dir}, ${repoPlugins}, npm package nosuchplugin)`,
    ),
    result.stderr,
  );
  assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
});

test('a plugin that throws is reported, and the others still serve', async (t) => {
  const dir = testdir(t, {
    'broken.ts': `export function register() { throw new Error('API key missing'); }`,
  });
  const { client, stderr } = await stdioClient(t, ['-d', dir, '-p', 'broken', 'echo']);
  assert.equal(text(await client.callTool({ name: 'echo', arguments: { message: 'ok' } })), 'ok');
  assert.deepEqual(
    (await client.listTools()).tools.map((tool) => tool.name),
    ['echo', 'echo_upper'],
  );
  assert.match(stderr(), /ERROR factory: Plugin 'broken' register\(\) failed: API key missing/);
});

test('plugins and their settings from a config file; --http beats the file', async (t) => {
  const dir = testdir(t, {
    'factory.yaml': [
      'server_name: Demo Box',
      'transport: stdio',
      'plugins:',
      '  greet: { greeting: "${GREETING:-Good morning}" }',
      '  echo: { enabled: false }',
    ].join('\n'),
  });
  const { match, output } = await startHttp(t, ['-c', join(dir, 'factory.yaml'), '--http', '0']);
  await new Promise((r) => setTimeout(r, 200));
  assert.match(output.stderr, /"demo-box": \{/, 'client config named after server_name');
  const client = new Client({ name: 'factory-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(match[1])));
  t.after(() => client.close());
  assert.deepEqual(
    (await client.listTools()).tools.map((tool) => tool.name),
    ['greet'],
  );
  assert.equal(
    text(await client.callTool({ name: 'greet', arguments: { name: 'Ada' } })),
    'Good morning, Ada!',
  );
  assert.equal(client.getServerVersion()?.name, 'Demo Box');
});

test('a wrong config value: exit 1 naming the file and the key', async (t) => {
  const dir = testdir(t, { 'bad.yaml': 'port: lots\nplugins_load: [echo]\n' });
  const result = await runBin(['-c', join(dir, 'bad.yaml')]);
  assert.equal(result.code, 1);
  assert.equal(
    result.stderr,
    `Error: invalid configuration: ${join(dir, 'bad.yaml')}: port: expected a port number (0-65535), got "lots"\n`,
  );
});

test('--help prints usage and exits 0', async () => {
  const result = await runBin(['--help']);
  assert.equal(result.code, 0);
  assert.match(result.stdout, /Usage: mcp-factory \[options\]/);
  assert.match(result.stdout, /--plugin-dir <dir>/);
});

test('metrics: true adds /metrics to the health port, counting real tool calls', async (t) => {
  const dir = testdir(t, {
    'm.yaml': 'metrics: true\noauth_enabled: false\nplugins_load: [echo]\n',
  });
  const { match, output } = await startHttp(t, ['-c', join(dir, 'm.yaml'), '--http', '0']);
  await new Promise((r) => setTimeout(r, 200));
  const healthUrl = /Health:\s+(\S+)\/health/.exec(output.stderr)?.[1];
  const client = new Client({ name: 'factory-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(match[1])));
  t.after(() => client.close());
  await client.callTool({ name: 'echo', arguments: { message: 'counted' } });
  const metrics = await (await fetch(`${healthUrl}/metrics`)).text();
  assert.match(metrics, /mcpbox_tool_calls_total\{[^}]*tool="echo"[^}]*\} 1/);
});

test('a busy health port: exit 1 naming the port', async (t) => {
  const { createServer } = await import('node:net');
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  t.after(() => blocker.close());
  const port = (blocker.address() as { port: number }).port;
  const result = await runBin(['--http', '0', '--health-port', String(port), '-p', 'echo']);
  assert.equal(result.code, 1);
  assert.match(
    result.stderr,
    new RegExp(
      `Error: health port ${port} on 127.0.0.1 is already in use \\(choose another with --health-port or health_port\\)\\n$`,
    ),
  );
});

/** The entries of a JSONL tool-call log once `count` are there (it is written in the background). */
async function logEntries(file: string, count: number): Promise<Array<Record<string, unknown>>> {
  let entries: Array<Record<string, unknown>> = [];
  for (let i = 0; i < 200 && entries.length < count; i++) {
    try {
      entries = readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
    } catch {
      // not written yet
    }
    if (entries.length < count) await new Promise((r) => setTimeout(r, 50));
  }
  return entries;
}

test('tool_log_dir: every call lands in tool_calls.jsonl, redacted, with the caller (HTTP and stdio)', async (t) => {
  const dir = testdir(t, {
    'logged.yaml': 'tool_log_dir: ./calls\noauth_enabled: false\nplugins_load: [echo]\n',
  });
  const file = join(dir, 'calls', 'tool_calls.jsonl');
  const { match } = await startHttp(t, ['-c', join(dir, 'logged.yaml'), '--http', '0']);
  const transport = new StreamableHTTPClientTransport(new URL(match[1]));
  const client = new Client({ name: 'factory-test', version: '1.0.0' });
  await client.connect(transport);
  t.after(() => client.close());
  const secret = 'postgres://app:hush-factory@db.internal/prod';
  assert.equal(
    text(await client.callTool({ name: 'echo', arguments: { message: secret } })),
    secret,
  );
  const [entry] = await logEntries(file, 1);
  assert.ok(entry, `no entry in ${file}`);
  assert.equal(entry.tool, 'echo');
  assert.equal(entry.plugin, 'echo');
  assert.equal(entry.outcome, 'ok');
  assert.equal(entry.session, transport.sessionId?.slice(0, 8), 'the session id, shortened');
  assert.deepEqual(entry.params, { message: 'postgres://app:***@db.internal/prod' });
  assert.equal(entry.result, 'postgres://app:***@db.internal/prod');
  assert.ok(!readFileSync(file, 'utf8').includes('hush-factory'));

  const stdio = await stdioClient(t, ['-c', join(dir, 'logged.yaml')]);
  await stdio.client.callTool({ name: 'echo_upper', arguments: { message: 'over stdio' } });
  const entries = await logEntries(file, 2);
  assert.deepEqual(
    entries.map((e) => [e.tool, e.result]),
    [
      ['echo', 'postgres://app:***@db.internal/prod'],
      ['echo_upper', 'OVER STDIO'],
    ],
  );
});
