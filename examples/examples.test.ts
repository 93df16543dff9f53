// Every example is run here, so none of them can rot: the configs load cleanly, each launch
// script starts and answers MCP (free ports through the scripts' environment overrides), the
// systemd unit verifies (with the config it tells you to copy), the README's client snippets parse
// and start what they name, and `npm start` takes a port.
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseGateConfig, readConfig } from '@mcpbox/framework';
// Not public API: the list of keys the schema knows, so a new option cannot go undocumented.
import { ENVIRONMENT_KEYS, knownConfigKeys } from '@mcpbox/framework/testing';
import { spawnTiedToTest } from '@mcpbox/test-utils';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { parse as parseYaml } from 'yaml';
import { freePort } from './cluster/processes.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const EXAMPLES = join(ROOT, 'examples');
const CONFIGS = join(EXAMPLES, 'configs');
const SCRIPTS = join(EXAMPLES, 'scripts');
const BIN = join(ROOT, 'node_modules', '.bin');
const START_TIMEOUT_MS = 60_000;

type TestContext = { after(fn: () => unknown): void };

const textOf = (r: unknown) => (r as { content: { text: string }[] }).content[0].text;

const scratchHomes: string[] = [];
// Removed once every test is over: a test's own after-hooks run in the order they were added, so
// removing a HOME there came before stopping the server writing its logs into it (ENOTEMPTY,
// and the failed hook left the server running).
after(() => {
  for (const home of scratchHomes) rmSync(home, { recursive: true, force: true });
});

/** A scratch HOME, so examples that write logs (~/.mcp_proxy) keep out of the real one. */
function scratchHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'mcpbox-examples-'));
  scratchHomes.push(home);
  return home;
}

/** Starts a launch script in its own process group; killed (group and all) after the test. */
function launch(t: TestContext, script: string, env: Record<string, string>) {
  return launchCommand(t, join(SCRIPTS, script), [], env);
}

/** Starts a command in its own process group; killed (group and all) after the test. */
function launchCommand(
  t: TestContext,
  command: string,
  args: string[],
  env: Record<string, string>,
) {
  const child = spawnTiedToTest(command, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  t.after(() => stopGroup(child));
  return { child, output: () => output };
}

async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  try {
    process.kill(-(child.pid ?? 0), 'SIGTERM');
  } catch {
    return;
  }
  await exited;
}

/** Waits until the health server says ready; fails with the script's output if it exits. */
async function waitReady(
  started: { child: ChildProcess; output: () => string },
  healthPort: number,
) {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    assert.equal(started.child.exitCode, null, `exited early:\n${started.output()}`);
    try {
      if ((await fetch(`http://127.0.0.1:${healthPort}/health/ready`)).ok) return;
    } catch {
      // not up yet
    }
    await sleep(200);
  }
  assert.fail(`not ready after ${START_TIMEOUT_MS / 1000} s:\n${started.output()}`);
}

async function httpClient(t: TestContext, url: string): Promise<Client> {
  const client = new Client({ name: 'examples-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  t.after(() => client.close());
  return client;
}

async function toolNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((tool) => tool.name).sort();
}

/** Feeds lines to a script that runs the interactive client, and returns what it printed. */
async function runClientScript(script: string, env: Record<string, string>, input: string) {
  const child = spawn(join(SCRIPTS, script), [], {
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  child.stdin.end(input);
  const timer = setTimeout(() => process.kill(-(child.pid ?? 0), 'SIGKILL'), START_TIMEOUT_MS);
  const [code] = await once(child, 'exit');
  clearTimeout(timer);
  return { code, stdout, stderr };
}

// ── configs ──────────────────────────────────────────────────────────────────────────────────

const CONFIG_FILES = [
  'proxy.example.yaml',
  'config-stdio.yaml',
  'framework.example.yaml',
  'factory.example.yaml',
];

test('every example config loads without errors or unknown-key warnings', () => {
  assert.deepEqual(
    readdirSync(CONFIGS).sort(),
    [...CONFIG_FILES].sort(),
    'a new config needs a line here',
  );
  for (const name of CONFIG_FILES) {
    // No variables set: every ${VAR} in the examples must have a default.
    const result = readConfig({ file: join(CONFIGS, name), env: { HOME: '/home/example' } });
    assert.ok(result.ok, `${name}: ${result.ok ? '' : result.errors.join('\n')}`);
    assert.deepEqual(result.warnings, [], name);
  }
});

test('proxy.example.yaml writes out every option the config schema knows', () => {
  const file = join(CONFIGS, 'proxy.example.yaml');
  const written = parseYaml(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const missing = [...knownConfigKeys()].filter((key) => !(key in written));
  assert.deepEqual(missing, [], 'options missing from proxy.example.yaml');

  const entries = Object.values(written.plugins as Record<string, Record<string, unknown>>);
  const entryKeys = new Set(entries.flatMap((entry) => Object.keys(entry)));
  const pluginEntryKeys = ['enabled', 'prefix', 'path', 'description', 'command', 'args'];
  const upstreamKeys = [
    'env',
    'cwd',
    'url',
    'headers',
    'connect_timeout',
    'request_timeout',
    'pin',
  ];
  for (const key of [...pluginEntryKeys, ...upstreamKeys, 'openapi']) {
    assert.ok(entryKeys.has(key), `plugins.*.${key} is not shown`);
  }

  // An openapi entry shows every key its settings know (openapi/settings.ts).
  const openapi = (written.plugins as Record<string, { openapi?: Record<string, unknown> }>).pets
    ?.openapi;
  const openapiKeys = ['spec', 'base_url', 'include', 'exclude', 'timeout', 'max_response_bytes'];
  for (const key of [...openapiKeys, 'operations', 'auth']) {
    assert.ok(openapi && key in openapi, `plugins.pets.openapi.${key} is not shown`);
  }

  // The gate section is validated by the gate module, not the top-level schema.
  const result = readConfig({ file, env: { HOME: '/home/example' } });
  assert.ok(result.ok);
  const gate = parseGateConfig(result.config.gate);
  assert.equal(gate.enabled, false);
  assert.deepEqual(gate.groups.get('shell')?.tools, ['shell_exec']);
});

// ── launch scripts ───────────────────────────────────────────────────────────────────────────

test('run_factory_echo.sh: the client starts mcp-factory over stdio and calls echo', async () => {
  const run = await runClientScript('run_factory_echo.sh', {}, 'echo hello from stdio\n');
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^hello from stdio$/m);
});

test('run_factory_http.sh serves factory.example.yaml plugins over HTTP', async (t) => {
  const [port, healthPort] = [await freePort(), await freePort()];
  const started = launch(t, 'run_factory_http.sh', {
    PORT: String(port),
    HEALTH_PORT: String(healthPort),
  });
  await waitReady(started, healthPort);
  const client = await httpClient(t, `http://127.0.0.1:${port}/mcp`);
  assert.deepEqual(await toolNames(client), ['demo_text_stats', 'echo', 'echo_upper', 'greet']);
  const greeted = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
  assert.equal(textOf(greeted), 'Hello, Ada!');
});

test('run_proxy_http.sh serves echo with management; connect_proxy_http.sh talks to it', async (t) => {
  const [port, healthPort, mgmtPort] = [await freePort(), await freePort(), await freePort()];
  const started = launch(t, 'run_proxy_http.sh', {
    PORT: String(port),
    HEALTH_PORT: String(healthPort),
    MGMT_PORT: String(mgmtPort),
  });
  await waitReady(started, healthPort);
  const client = await httpClient(t, `http://127.0.0.1:${port}/mcp`);
  assert.ok((await toolNames(client)).includes('echo'));

  const status = execFileSync(
    process.execPath,
    [join(ROOT, 'packages/proxy/bin/mcp-proxy.js'), 'status', '--mgmt-port', String(mgmtPort)],
    { encoding: 'utf8', env: { ...process.env, MCP_MGMT_TOKEN: '' } },
  );
  assert.match(status, /echo/);

  const run = await runClientScript(
    'connect_proxy_http.sh',
    { PORT: String(port) },
    'echo_upper through the proxy\n',
  );
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^THROUGH THE PROXY$/m);
});

test('run_proxy_full.sh serves proxy.example.yaml: echo + greet, tool-call log', async (t) => {
  const home = scratchHome();
  const [port, healthPort, mgmtPort] = [await freePort(), await freePort(), await freePort()];
  const started = launch(t, 'run_proxy_full.sh', {
    HOME: home,
    PORT: String(port),
    HEALTH_PORT: String(healthPort),
    MGMT_PORT: String(mgmtPort),
    MCP_MGMT_TOKEN: '',
  });
  await waitReady(started, healthPort);
  const client = await httpClient(t, `http://127.0.0.1:${port}/mcp`);
  const names = await toolNames(client);
  for (const name of ['echo', 'greet', 'proxy__status']) assert.ok(names.includes(name), name);
  const greeted = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
  assert.equal(textOf(greeted), 'Hello, Ada!');
  const logs = join(home, '.mcp_proxy', 'logs');
  const deadline = Date.now() + 10_000;
  while (!existsSync(join(logs, 'tool_calls.jsonl')) && Date.now() < deadline) await sleep(100);
  assert.match(readFileSync(join(logs, 'tool_calls.jsonl'), 'utf8'), /"greet"/);
});

// mcp-proxy applies the same security settings (OAuth, gate, metrics) as mcp-factory.
test('run_proxy_full.sh serves /metrics with metrics: true', async (t) => {
  const [port, healthPort, mgmtPort] = [await freePort(), await freePort(), await freePort()];
  const started = launch(t, 'run_proxy_full.sh', {
    HOME: scratchHome(),
    PORT: String(port),
    HEALTH_PORT: String(healthPort),
    MGMT_PORT: String(mgmtPort),
    MCP_MGMT_TOKEN: '',
  });
  await waitReady(started, healthPort);
  const client = await httpClient(t, `http://127.0.0.1:${port}/mcp`);
  await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
  const metrics = await (await fetch(`http://127.0.0.1:${healthPort}/metrics`)).text();
  assert.match(metrics, /mcpbox_tool_calls_total\{[^}]*tool="greet"/);
});

test('run_proxy_full.sh with OAuth URLs set refuses requests without a token', async (t) => {
  const [port, healthPort, mgmtPort, authPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const started = launch(t, 'run_proxy_full.sh', {
    HOME: scratchHome(),
    PORT: String(port),
    HEALTH_PORT: String(healthPort),
    MGMT_PORT: String(mgmtPort),
    MCP_MGMT_TOKEN: '',
    MCP_OAUTH_ENABLED: 'true',
    MCP_OAUTH_SERVER_URL: `http://127.0.0.1:${authPort}`,
    MCP_PUBLIC_URL: `http://127.0.0.1:${port}/mcp`,
  });
  await waitReady(started, healthPort);
  const response = await fetch(`http://127.0.0.1:${port}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  assert.equal(response.status, 401);
});

/** Waits until the MCP endpoint answers HTTP at all (a framework server has no health port). */
async function waitListening(started: { child: ChildProcess; output: () => string }, url: string) {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    assert.equal(started.child.exitCode, null, `exited early:\n${started.output()}`);
    try {
      await fetch(url);
      return;
    } catch {
      await sleep(200);
    }
  }
  assert.fail(`not listening after ${START_TIMEOUT_MS / 1000} s:\n${started.output()}`);
}

test('run_standalone.sh serves examples/standalone.ts with framework.example.yaml', async (t) => {
  const port = await freePort();
  const started = launch(t, 'run_standalone.sh', { PORT: String(port) });
  const url = `http://127.0.0.1:${port}/mcp`;
  await waitListening(started, url);
  const client = await httpClient(t, url);
  assert.equal(client.getServerVersion()?.name, 'Standalone Example');
  const result = await client.callTool({ name: 'hello', arguments: { name: 'Ada' } });
  assert.equal(textOf(result), 'Hello, Ada!');
});

test('every launch script is covered here and executable', () => {
  const covered = [
    'connect_proxy_http.sh',
    'run_factory_echo.sh',
    'run_factory_http.sh',
    'run_proxy_full.sh',
    'run_proxy_http.sh',
    'run_standalone.sh',
  ];
  assert.deepEqual(readdirSync(SCRIPTS).sort(), covered, 'a new script needs a test here');
  for (const script of covered) {
    assert.equal(spawnSync('bash', ['-n', join(SCRIPTS, script)]).status, 0, script);
    assert.ok(readFileSync(join(SCRIPTS, script), 'utf8').startsWith('#!/usr/bin/env bash\n'));
  }
});

// ── npm start ────────────────────────────────────────────────────────────────────────────────

test('npm start takes a port: npm start -- --port N, or PORT=N npm start (the flag wins)', async (t) => {
  for (const form of ['flag', 'env'] as const) {
    const [port, healthPort] = [await freePort(), await freePort()];
    const forPort = form === 'flag' ? ['--port', String(port)] : [];
    // Through npm itself; a PORT in the environment loses to the flag. Other arguments reach
    // mcp-factory (here the health port, so both ports are known to be free).
    const started = launchCommand(
      t,
      'npm',
      ['start', '--silent', '--', ...forPort, '--health-port', String(healthPort)],
      { HOME: scratchHome(), PORT: form === 'flag' ? '1' : String(port) },
    );
    await waitReady(started, healthPort);
    assert.match(started.output(), new RegExp(`MCP endpoint: +http://127\\.0\\.0\\.1:${port}/mcp`));
    const client = await httpClient(t, `http://127.0.0.1:${port}/mcp`);
    assert.ok((await toolNames(client)).includes('execute_ipython_cell'));
  }
});

test('npm start with a port that is not one stops with a message', () => {
  const cases: Array<[string[], Record<string, string>, string]> = [
    [['--port', 'eighty'], {}, '--port must be a port number (0-65535), got "eighty"'],
    [[], { PORT: '70000' }, 'PORT must be a port number (0-65535), got "70000"'],
  ];
  for (const [args, env, message] of cases) {
    const run = spawnSync(process.execPath, [join(ROOT, 'scripts', 'start.mjs'), ...args], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
    });
    assert.deepEqual([run.status, run.stderr], [1, `npm start: ${message}\n`]);
  }
});

// ── systemd unit ─────────────────────────────────────────────────────────────────────────────

test('the systemd unit verifies and runs mcp-proxy with flags it accepts', () => {
  const unit = join(EXAMPLES, 'systemd', 'mcp-proxy.service');
  const sections = new Map<string, Map<string, string[]>>();
  let current: Map<string, string[]> | undefined;
  for (const line of readFileSync(unit, 'utf8').split('\n')) {
    const header = line.match(/^\[(\w+)\]$/);
    if (header) {
      current = new Map();
      sections.set(header[1], current);
    } else if (/^\w+=/.test(line)) {
      assert.ok(current, `setting outside a section: ${line}`);
      const [key, ...value] = line.split('=');
      current.set(key, [...(current.get(key) ?? []), value.join('=')]);
    }
  }
  assert.deepEqual([...sections.keys()], ['Unit', 'Service', 'Install']);
  const service = sections.get('Service');
  assert.deepEqual(service?.get('Restart'), ['on-failure']);
  assert.ok(service?.get('EnvironmentFile')?.[0]?.includes('%h/'));
  assert.ok((service?.get('Environment') ?? []).length > 0);
  assert.deepEqual(sections.get('Install')?.get('WantedBy'), ['default.target']);

  // Every flag in ExecStart is one `mcp-proxy serve` knows.
  const exec = service?.get('ExecStart')?.[0] ?? '';
  assert.match(exec, /^\/usr\/bin\/env mcp-proxy serve /);
  const help = execFileSync(
    process.execPath,
    [join(ROOT, 'packages/proxy/bin/mcp-proxy.js'), 'serve', '--help'],
    { encoding: 'utf8' },
  );
  for (const flag of exec.match(/--[a-z-]+/g) ?? []) assert.ok(help.includes(flag), flag);

  // What the unit sets holds with the config it tells you to copy: a key the config writes as a
  // plain value would beat the unit's MCP_* variable (the file ranks above the environment).
  const text = readFileSync(unit, 'utf8');
  const copied = /cp examples\/configs\/(\S+) ~\/\.config\/mcp-proxy\/proxy\.yaml/.exec(text);
  assert.ok(copied, 'the unit says which config to copy');
  const unitEnv = Object.fromEntries(
    (service?.get('Environment') ?? []).map((pair) => pair.split(/=(.*)/s).slice(0, 2)),
  ) as Record<string, string>;
  // The EnvironmentFile the install steps write holds the management token.
  assert.match(text, /printf 'MCP_MGMT_TOKEN=%s\\n'/);
  const env = { ...unitEnv, MCP_MGMT_TOKEN: 'from-the-env-file', HOME: '/home/example' };
  const loaded = readConfig({ file: join(CONFIGS, copied[1]), env });
  assert.ok(loaded.ok, loaded.ok ? '' : loaded.errors.join('\n'));
  const settings: Record<string, string> = { ...unitEnv, MCP_MGMT_TOKEN: env.MCP_MGMT_TOKEN };
  const mcpVariables = Object.keys(settings).filter((name) => name.startsWith('MCP_'));
  assert.ok(mcpVariables.includes('MCP_LOG_FORMAT'));
  for (const variable of mcpVariables) {
    const key = ENVIRONMENT_KEYS[variable];
    assert.ok(key, `${variable} is not a configuration variable`);
    assert.equal(
      String(loaded.config[key as keyof typeof loaded.config]),
      settings[variable],
      `${variable} in the unit, but ${copied[1]} sets ${key}`,
    );
  }

  const verify = spawnSync('systemd-analyze', ['verify', unit], { encoding: 'utf8' });
  if (verify.error) {
    // systemd-analyze is not installed: the structural checks above are all we can do.
    return;
  }
  assert.equal(verify.status, 0, verify.stderr);
  assert.doesNotMatch(verify.stderr, /mcp-proxy\.service/, verify.stderr);
});

// ── README snippets ─────────────────────────────────────────────────────────────────────────

function readmeSection(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('## Use with Claude Desktop, Claude Code, VS Code\n');
  assert.ok(start >= 0, 'README section is missing');
  const end = readme.indexOf('\n## ', start + 3);
  return readme.slice(start, end < 0 ? undefined : end);
}

function codeBlocks(section: string, language: string): string[] {
  const fence = new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g');
  return [...section.matchAll(fence)].map((m) => m[1]);
}

interface ServerSnippet {
  command?: string;
  args?: string[];
  type?: string;
  url?: string;
}

/** The launch command of a stdio snippet with `/path/to/mcpbox` pointing at this checkout. */
function resolveSnippet(command: string, args: string[]): { command: string; args: string[] } {
  const bin = join(BIN, command);
  assert.ok(existsSync(bin), `${command} is not one of the repository's bins`);
  const resolved = args.map((arg) => arg.replace('/path/to/mcpbox', ROOT.replace(/\/$/, '')));
  for (const arg of resolved) {
    if (arg.startsWith('/')) assert.ok(existsSync(arg), `${arg} does not exist`);
  }
  return { command: bin, args: resolved };
}

/** The default URL of the example proxy: run_proxy_http.sh's default port. */
function exampleProxyUrl(): string {
  const script = readFileSync(join(SCRIPTS, 'run_proxy_http.sh'), 'utf8');
  const port = script.match(/\$\{PORT:-(\d+)\}/)?.[1];
  return `http://127.0.0.1:${port}/mcp`;
}

async function startsAndLists(
  t: TestContext,
  snippet: { command: string; args: string[] },
): Promise<string[]> {
  const home = scratchHome();
  const transport = new StdioClientTransport({
    ...snippet,
    env: {
      HOME: home,
      MGMT_PORT: String(await freePort()),
      MCP_MGMT_TOKEN: '',
      // The sources, as every test runs them (scripts/run-tests.mjs), not a dist/ maybe stale.
      MCPBOX_BIN: process.env.MCPBOX_BIN ?? 'dist',
    },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'readme-snippet', version: '1.0.0' });
  await client.connect(transport);
  t.after(() => client.close());
  return toolNames(client);
}

test('README client snippets parse, name real bins and files, and start', async (t) => {
  const section = readmeSection();
  const json = codeBlocks(section, 'json').map((block) => JSON.parse(block));
  assert.equal(json.length, 3);
  const launched = new Set<string>();
  for (const document of json) {
    const servers = (document.mcpServers ?? document.servers) as Record<string, ServerSnippet>;
    assert.ok(servers, 'expected mcpServers (Claude) or servers (VS Code)');
    for (const [name, server] of Object.entries(servers)) {
      if (server.url) {
        assert.equal(server.url, exampleProxyUrl(), name);
        continue;
      }
      assert.ok(server.command, `${name} has neither command nor url`);
      const snippet = resolveSnippet(server.command, server.args ?? []);
      const key = JSON.stringify(snippet);
      if (launched.has(key)) continue;
      launched.add(key);
      const names = await startsAndLists(t, snippet);
      assert.ok(names.includes('echo'), `${name}: ${names.join(', ')}`);
    }
  }

  const commands = codeBlocks(section, 'sh')
    .flatMap((block) => block.split('\n'))
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line.startsWith('claude mcp add'));
  assert.equal(commands.length, 2);
  for (const line of commands) {
    const [, launch] = line.split(' -- ');
    if (launch) {
      const [command, ...args] = launch.split(/\s+/);
      assert.ok(launched.has(JSON.stringify(resolveSnippet(command, args))), line);
    } else {
      assert.match(line, /--transport http \S+ (\S+)$/);
      assert.equal(line.split(/\s+/).at(-1), exampleProxyUrl());
    }
  }
});
