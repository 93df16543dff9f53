// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are config text with ${VAR} placeholders
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { ConfigError } from '../errors.ts';
import { applyOverrides, loadConfig, readConfig } from './load.ts';

/** Writes `files` into a fresh temp folder removed after the test. */
function testdir(t: TestContext, files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcpbox-config-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const HOME = '/home/tester';

test('defaults: loopback bind, port 12201, health on port+1, stdio', () => {
  const config = loadConfig({ env: { HOME } });
  assert.equal(config.host, '127.0.0.1');
  assert.equal(config.port, 12201);
  assert.equal(config.health_port, 12202);
  assert.equal(config.health_host, '127.0.0.1');
  assert.equal(config.transport, 'stdio');
  assert.equal(config.log_level, 'info');
  assert.equal(config.log_format, 'text');
  assert.equal(config.allow_unauthenticated, false);
  assert.equal(config.oauth_enabled, false);
  assert.equal(config.oauth_cache_ttl, 28800);
  assert.equal(config.management_port, 12299);
  assert.equal(config.plugin_config_dir, '/home/tester/mcp_plugins');
  assert.equal(config.tool_log_dir, '/home/tester/.mcp_proxy/logs');
  assert.deepEqual(config.plugins, {});
  assert.equal(config.management_token, undefined);
});

test('a YAML file sets keys; values are normalized (case, aliases, numeric strings)', (t) => {
  const dir = testdir(t, {
    'mcpbox.yaml': [
      'server_name: Demo',
      'log_level: DEBUG',
      'transport: streamable-http',
      'port: "8000"',
      'stateless: yes',
      'plugins_load: [echo, greet]',
      'plugin_dirs: [./more-plugins, ~/shared]',
      'plugins:',
      '  echo:',
      '  greet: { enabled: false, prefix: false, greeting: Hi }',
      'gate: { enabled: true, groups: { shell: { timeout: 60 } } }',
    ].join('\n'),
  });
  const config = loadConfig({ file: join(dir, 'mcpbox.yaml'), env: { HOME } });
  assert.equal(config.server_name, 'Demo');
  assert.equal(config.log_level, 'debug');
  assert.equal(config.transport, 'http');
  assert.equal(config.port, 8000);
  assert.equal(config.health_port, 8001);
  assert.equal(config.stateless, true);
  assert.deepEqual(config.plugins_load, ['echo', 'greet']);
  assert.deepEqual(config.plugin_dirs, [join(dir, 'more-plugins'), '/home/tester/shared']);
  assert.deepEqual(config.plugins.echo, {});
  // Plugin-specific keys pass through untouched.
  assert.deepEqual(config.plugins.greet, { enabled: false, prefix: false, greeting: 'Hi' });
  assert.deepEqual(config.gate, { enabled: true, groups: { shell: { timeout: 60 } } });
  assert.equal(config.config_file, join(dir, 'mcpbox.yaml'));
});

test('MCP_* environment variables set keys the file leaves out', () => {
  const config = loadConfig({
    env: {
      HOME,
      MCP_SERVER_NAME: 'from-env',
      MCP_LOG_LEVEL: 'warning',
      MCP_LOG_FORMAT: 'json',
      MCP_HOST: '0.0.0.0',
      MCP_PORT: '9000',
      MCP_HEALTH_PORT: '9100',
      MCP_TRANSPORT: 'sse',
      MCP_OAUTH_ENABLED: 'off',
      MCP_OAUTH_SERVER_URL: 'https://auth.example.com',
      MCP_PUBLIC_URL: 'https://mcp.example.com',
      MCP_MGMT_TOKEN: 's3cret',
    },
  });
  assert.equal(config.server_name, 'from-env');
  assert.equal(config.log_level, 'warning');
  assert.equal(config.log_format, 'json');
  assert.equal(config.host, '0.0.0.0');
  assert.equal(config.port, 9000);
  assert.equal(config.health_port, 9100);
  assert.equal(config.transport, 'sse');
  assert.equal(config.oauth_enabled, false);
  assert.equal(config.oauth_server_url, 'https://auth.example.com');
  assert.equal(config.oauth_public_url, 'https://mcp.example.com');
  assert.equal(config.management_token, 's3cret');
});

test('MCP_OAUTH_ENABLED accepts true/1/yes/on', () => {
  for (const word of ['true', '1', 'yes', 'on', 'TRUE']) {
    const config = loadConfig({
      env: { HOME, MCP_OAUTH_ENABLED: word },
      defaults: { oauth_enabled: false },
    });
    assert.equal(config.oauth_enabled, true, word);
  }
});

test('OAuth is on when written so, else when either URL is set; health_host stays loopback', () => {
  const url = 'https://auth.example.com';
  const on = (env: Record<string, string>) => loadConfig({ env: { HOME, ...env } }).oauth_enabled;
  assert.equal(on({ MCP_OAUTH_SERVER_URL: url }), true);
  assert.equal(on({ MCP_PUBLIC_URL: url }), true);
  assert.equal(on({ MCP_OAUTH_SERVER_URL: url, MCP_OAUTH_ENABLED: 'false' }), false);
  assert.equal(on({ MCP_OAUTH_SERVER_URL: '', MCP_PUBLIC_URL: '' }), false);
  // Empty leaves the decision to the default, so `oauth_enabled: ${MCP_OAUTH_ENABLED:-}` works.
  assert.equal(on({ MCP_OAUTH_SERVER_URL: url, MCP_OAUTH_ENABLED: '' }), true);
  assert.equal(on({ MCP_OAUTH_ENABLED: '' }), false);

  const config = loadConfig({
    env: { HOME, MCP_HOST: '0.0.0.0' },
    overrides: { allow_unauthenticated: true },
  });
  assert.equal(config.host, '0.0.0.0');
  assert.equal(config.health_host, '127.0.0.1');
  assert.equal(config.allow_unauthenticated, true);
  const result = readConfig({
    env: { HOME },
    overrides: { allow_unauthenticated: 'maybe' as never, health_host: '' },
  });
  assert.ok(!result.ok);
  assert.deepEqual(result.errors, [
    'command line: allow_unauthenticated: expected true or false, got "maybe"',
    'command line: health_host: expected a non-empty string, got ""',
  ]);
});

test('precedence: command line > file > environment > program defaults', (t) => {
  const dir = testdir(t, { 'c.yaml': 'server_name: from-file\nport: 7000\n' });
  const env = { HOME, MCP_SERVER_NAME: 'from-env', MCP_PORT: '7100', MCP_HOST: '127.0.0.2' };
  const file = join(dir, 'c.yaml');
  const defaults = { server_name: 'program', log_format: 'json' as const };

  const plain = loadConfig({ file, env, defaults });
  assert.equal(plain.server_name, 'from-file', 'file beats environment');
  assert.equal(plain.port, 7000, 'file beats environment');
  assert.equal(plain.host, '127.0.0.2', 'environment fills what the file leaves out');
  assert.equal(plain.log_format, 'json', 'program defaults fill the rest');

  const overridden = loadConfig({
    file,
    env,
    defaults,
    overrides: { port: 8000, transport: 'http', server_name: undefined },
  });
  assert.equal(overridden.port, 8000, 'command line beats file');
  assert.equal(overridden.server_name, 'from-file', 'an undefined flag changes nothing');
  assert.equal(overridden.health_port, 8001, 'health port follows the overridden port');
});

test('applyOverrides recomputes health_port after --http, unless it was set', (t) => {
  const dir = testdir(t, {
    'a.yaml': 'port: 12200\n',
    'b.yaml': 'port: 12200\nhealth_port: 5000\n',
  });
  const a = applyOverrides(loadConfig({ file: join(dir, 'a.yaml'), env: { HOME } }), {
    transport: 'http',
    port: 8000,
  });
  assert.equal(a.port, 8000);
  assert.equal(a.health_port, 8001);
  assert.equal(a.transport, 'http');

  const b = applyOverrides(loadConfig({ file: join(dir, 'b.yaml'), env: { HOME } }), {
    port: 8000,
  });
  assert.equal(b.health_port, 5000);

  assert.throws(
    () => applyOverrides(a, { port: 99999 }),
    (error: unknown) =>
      error instanceof ConfigError &&
      error.issues[0] === 'command line: port: expected a port number (0-65535), got 99999',
  );
});

test('${VAR} and ${VAR:-default} expand in every string, at any depth', (t) => {
  const dir = testdir(t, {
    'c.yaml': [
      'server_name: ${NAME}',
      'port: ${PORT:-8123}',
      'management_token: "${TOKEN}"',
      'instructions: "literal $${NOT_EXPANDED} and ${EMPTY:-fallback}"',
      'plugins:',
      '  upstream:',
      '    command: ${TOOL_BIN:-/usr/bin/tool}',
      '    args: ["--key", "${API_KEY}"]',
      '    env: { DEEP: "${NAME}-x" }',
    ].join('\n'),
  });
  const config = loadConfig({
    file: join(dir, 'c.yaml'),
    env: { HOME, NAME: 'box', TOKEN: 'tok', API_KEY: 'k1', EMPTY: '' },
  });
  assert.equal(config.server_name, 'box');
  assert.equal(config.port, 8123);
  assert.equal(config.management_token, 'tok');
  assert.equal(config.instructions, 'literal ${NOT_EXPANDED} and fallback');
  // An upstream entry's connection settings keep their placeholders: the MCP client expands
  // them when it connects, so secrets such as API_KEY never sit in the resolved config.
  assert.deepEqual(config.plugins.upstream, {
    command: '${TOOL_BIN:-/usr/bin/tool}',
    args: ['--key', '${API_KEY}'],
    env: { DEEP: '${NAME}-x' },
  });
});

test('a local plugin entry is interpolated; an upstream entry with an unset variable still loads', (t) => {
  const dir = testdir(t, {
    'c.yaml': [
      'plugins:',
      '  wekan: { board: "${BOARD}", stage: "${STAGE:-prod}" }',
      '  remote: { url: "https://mcp.example/${PATH_PART}", headers: { Authorization: "Bearer ${UNSET_TOKEN}" } }',
    ].join('\n'),
  });
  const config = loadConfig({
    file: join(dir, 'c.yaml'),
    env: { HOME, BOARD: 'b1', PATH_PART: 'p' },
  });
  assert.deepEqual(config.plugins.wekan, { board: 'b1', stage: 'prod' });
  assert.deepEqual(config.plugins.remote, {
    url: 'https://mcp.example/${PATH_PART}',
    headers: { Authorization: 'Bearer ${UNSET_TOKEN}' },
  });
});

test('an unset ${VAR} is an error naming the file, the key and the variable', (t) => {
  const dir = testdir(t, {
    'c.yaml': 'management_token: ${MCP_MGMT_TOKEN}\nplugins:\n  x:\n    args: ["${MISSING}"]\n',
  });
  const file = join(dir, 'c.yaml');
  const result = readConfig({ file, env: { HOME } });
  assert.equal(result.ok, false);
  assert.deepEqual(!result.ok && result.errors, [
    `${file}: management_token: environment variable MCP_MGMT_TOKEN is not set (write \${MCP_MGMT_TOKEN:-default} for a fallback)`,
    `${file}: plugins.x.args[0]: environment variable MISSING is not set (write \${MISSING:-default} for a fallback)`,
  ]);
  // `${VAR:-}` leaves an optional value out on purpose.
  const optional = testdir(t, { 'c.yaml': 'management_token: ${MCP_MGMT_TOKEN:-}\n' });
  assert.equal(
    loadConfig({ file: join(optional, 'c.yaml'), env: { HOME } }).management_token,
    undefined,
  );
});

test('every wrong value is reported at once as <file>: <dotted.key>: <expected>', (t) => {
  const dir = testdir(t, {
    'bad.yaml': [
      'port: eighty',
      'log_level: loud',
      'transport: carrier-pigeon',
      'stateless: maybe',
      'autoload: echo',
      'oauth_server_url: not a url',
      'plugins:',
      '  echo: { enabled: sometimes, args: [1, two] }',
    ].join('\n'),
  });
  const file = join(dir, 'bad.yaml');
  assert.throws(
    () => loadConfig({ file, env: { HOME } }),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.deepEqual(error.issues, [
        `${file}: port: expected a port number (0-65535), got "eighty"`,
        `${file}: log_level: expected one of debug, info, warning, error, got "loud"`,
        `${file}: transport: expected one of stdio, http (or streamable-http), sse, got "carrier-pigeon"`,
        `${file}: stateless: expected true or false, got "maybe"`,
        `${file}: autoload: expected a list of strings, got "echo"`,
        `${file}: oauth_server_url: expected an http(s) URL, got "not a url"`,
        `${file}: plugins.echo.enabled: expected true or false, got "sometimes"`,
        `${file}: plugins.echo.args[0]: expected a string, got 1`,
      ]);
      assert.match(error.message, /invalid configuration \(8 problems\)/);
      return true;
    },
  );
});

test('a bad environment value names the variable and the key', () => {
  const result = readConfig({ env: { HOME, MCP_PORT: 'abc', MCP_TRANSPORT: 'smoke' } });
  assert.deepEqual(!result.ok && result.errors, [
    'environment variable MCP_PORT: port: expected a port number (0-65535), got "abc"',
    'environment variable MCP_TRANSPORT: transport: expected one of stdio, http (or streamable-http), sse, got "smoke"',
  ]);
});

test('missing file, broken YAML and a non-mapping file are clear errors', (t) => {
  const dir = testdir(t, { 'broken.yaml': 'port: [1, 2\n', 'list.yaml': '- a\n- b\n' });
  const missing = readConfig({ file: join(dir, 'nope.yaml'), env: { HOME } });
  assert.deepEqual(!missing.ok && missing.errors, [`${join(dir, 'nope.yaml')}: file not found`]);

  const broken = readConfig({ file: join(dir, 'broken.yaml'), env: { HOME } });
  assert.equal(broken.ok, false);
  assert.match(!broken.ok ? broken.errors[0] : '', /broken\.yaml:\d+:\d+: invalid YAML: /);

  const list = readConfig({ file: join(dir, 'list.yaml'), env: { HOME } });
  assert.deepEqual(!list.ok && list.errors, [
    `${join(dir, 'list.yaml')}: expected a mapping of configuration keys, got a list`,
  ]);
});

test('an unknown top-level key warns with the key and the file, and loading goes on', (t) => {
  const dir = testdir(t, { 'c.yaml': 'log_levle: debug\nfavourite_colour: blue\nport: 1234\n' });
  const file = join(dir, 'c.yaml');
  const result = readConfig({ file, env: { HOME } });
  assert.ok(result.ok);
  assert.equal(result.config.port, 1234);
  assert.deepEqual(result.warnings, [
    `${file}: unknown key "log_levle" is ignored (did you mean "log_level"?)`,
    `${file}: unknown key "favourite_colour" is ignored`,
  ]);
});

test('an empty file is an empty configuration', (t) => {
  const dir = testdir(t, { 'empty.yaml': '# nothing yet\n' });
  assert.equal(loadConfig({ file: join(dir, 'empty.yaml'), env: { HOME } }).port, 12201);
});
