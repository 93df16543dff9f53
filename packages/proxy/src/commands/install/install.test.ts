/**
 * `mcp-proxy install` through the real bin. HOME and the working directory are temporary
 * directories, so the default paths are exercised without touching a real configuration.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { defaultConfigPath } from './clients.ts';

const proxyBin = fileURLToPath(new URL('../../../bin/mcp-proxy.js', import.meta.url));
const clientBin = fileURLToPath(new URL('../../../bin/mcp-client.js', import.meta.url));
const factoryBin = fileURLToPath(new URL('../../../bin/mcp-factory.js', import.meta.url));

interface Sandbox {
  home: string;
  /** The working directory (a project). */
  cwd: string;
  /** A directory on PATH holding the executable `my-server`. */
  bin: string;
  env: NodeJS.ProcessEnv;
  run(args: string[]): { code: number | null; stdout: string; stderr: string };
}

function sandbox(t: TestContext): Sandbox {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-proxy-install-')));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const home = join(root, 'home');
  const cwd = join(root, 'project');
  const bin = join(root, 'bin');
  for (const dir of [home, cwd, bin]) mkdirSync(dir);
  writeFileSync(join(bin, 'my-server'), '#!/bin/sh\nexit 0\n');
  chmodSync(join(bin, 'my-server'), 0o755);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    PATH: `${bin}${delimiter}${process.env.PATH}`,
  };
  delete env.XDG_CONFIG_HOME;
  delete env.APPDATA;
  return {
    home,
    cwd,
    bin,
    env,
    run: (args) => {
      const r = spawnSync(process.execPath, [proxyBin, 'install', ...args], {
        cwd,
        env,
        encoding: 'utf8',
        timeout: 120_000,
      });
      return { code: r.status, stdout: r.stdout, stderr: r.stderr };
    },
  };
}

const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

test('each client gets its own file and format at its default path', (t) => {
  const box = sandbox(t);
  const server = ['--', 'my-server', '--flag', 'a b'];
  for (const client of ['claude-desktop', 'claude-code', 'vscode', 'cursor']) {
    const run = box.run([client, 'demo', '-e', 'API_KEY=k', ...server]);
    assert.equal(run.code, 0, `${client}: ${run.stderr}`);
    assert.match(run.stderr, /Added the server "demo" in /);
  }
  const full = join(box.bin, 'my-server');
  const env = { API_KEY: 'k' };
  // User-level files get the full path; project files keep the command as typed.
  assert.deepEqual(readJson(join(box.home, '.config/Claude/claude_desktop_config.json')), {
    mcpServers: { demo: { command: full, args: ['--flag', 'a b'], env } },
  });
  assert.deepEqual(readJson(join(box.home, '.cursor/mcp.json')), {
    mcpServers: { demo: { command: full, args: ['--flag', 'a b'], env } },
  });
  assert.deepEqual(readJson(join(box.cwd, '.mcp.json')), {
    mcpServers: { demo: { type: 'stdio', command: 'my-server', args: ['--flag', 'a b'], env } },
  });
  assert.deepEqual(readJson(join(box.cwd, '.vscode/mcp.json')), {
    servers: { demo: { type: 'stdio', command: 'my-server', args: ['--flag', 'a b'], env } },
  });
});

test('an HTTP server: a URL entry where the client takes one, a clear refusal where not', (t) => {
  const box = sandbox(t);
  const url = 'http://127.0.0.1:8000/mcp';
  assert.equal(box.run(['vscode', 'remote', url]).code, 0);
  assert.deepEqual(readJson(join(box.cwd, '.vscode/mcp.json')).servers.remote, {
    type: 'http',
    url,
  });
  assert.equal(box.run(['cursor', url]).code, 0);
  assert.deepEqual(readJson(join(box.home, '.cursor/mcp.json')).mcpServers, {
    '127-0-0-1-8000': { url },
  });
  const desktop = box.run(['claude-desktop', 'remote', url]);
  assert.equal(desktop.code, 1);
  assert.match(desktop.stderr, /Claude Desktop starts only stdio servers .*Settings → Connectors/);
  assert.equal(existsSync(join(box.home, '.config/Claude')), false);
});

test('merging keeps every other key and server, backs up the previous file, replaces by name', (t) => {
  const box = sandbox(t);
  const file = join(box.home, 'claude.json');
  const before = `${JSON.stringify(
    {
      theme: 'dark',
      mcpServers: { keep: { command: 'other', args: ['x'] }, demo: { command: 'old' } },
      globalShortcut: 'Ctrl+Space',
    },
    null,
    4,
  )}\n`;
  writeFileSync(file, before);
  const run = box.run(['claude-desktop', 'demo', '--config', file, '--', '/opt/srv', 'serve']);
  assert.equal(run.code, 0, run.stderr);
  assert.match(
    run.stderr,
    /Replaced the server "demo" in .*claude\.json \(the previous file is in .*claude\.json\.bak\)/,
  );
  assert.equal(readFileSync(`${file}.bak`, 'utf8'), before);
  assert.deepEqual(readJson(file), {
    theme: 'dark',
    mcpServers: {
      keep: { command: 'other', args: ['x'] },
      demo: { command: '/opt/srv', args: ['serve'] },
    },
    globalShortcut: 'Ctrl+Space',
  });
});

test('a file that is not JSON, or not the expected shape, is refused and left untouched', (t) => {
  const box = sandbox(t);
  const cases: [string, RegExp][] = [
    [
      '{\n  "mcpServers": {}, // mine\n}\n',
      /is not valid JSON \(.*comments and trailing commas are not JSON\)/,
    ],
    ['[1, 2]\n', /does not hold a JSON object/],
    ['{"mcpServers": ["a"]}\n', /has a "mcpServers" that is not an object/],
  ];
  for (const [text, message] of cases) {
    const file = join(box.home, 'mcp.json');
    writeFileSync(file, text);
    const run = box.run(['cursor', 'demo', '--config', file, '--', '/opt/srv']);
    assert.equal(run.code, 1, text);
    assert.match(run.stderr, message);
    assert.match(
      run.stderr,
      /nothing was changed\. Fix the file or add the entry by hand:\n\{\n {2}"mcpServers": \{\n {4}"demo": \{/,
    );
    assert.equal(readFileSync(file, 'utf8'), text, 'the file is unchanged');
    assert.equal(existsSync(`${file}.bak`), false);
  }
});

test('a symlinked config file is written through the link, which stays a link', (t) => {
  const box = sandbox(t);
  const target = join(box.home, 'dotfiles-mcp.json');
  writeFileSync(target, '{"mcpServers": {}}\n');
  mkdirSync(join(box.home, '.cursor'));
  const link = join(box.home, '.cursor/mcp.json');
  symlinkSync(target, link);
  assert.equal(box.run(['cursor', 'demo', '--', '/opt/srv']).code, 0);
  assert.equal(realpathSync(link), target);
  assert.deepEqual(readJson(target).mcpServers.demo, { command: '/opt/srv', args: [] });
});

test('--print writes nothing; for Claude Code it also gives the claude mcp add command', (t) => {
  const box = sandbox(t);
  const run = box.run(['claude-code', '--print', '-e', 'TOKEN=a b', '--', 'my-server', "it's"]);
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout), {
    mcpServers: {
      'my-server': { type: 'stdio', command: 'my-server', args: ["it's"], env: { TOKEN: 'a b' } },
    },
  });
  assert.equal(
    run.stderr.trim(),
    `Or let Claude Code add it: claude mcp add --scope project -e 'TOKEN=a b' my-server -- my-server 'it'\\''s'`,
  );
  assert.equal(existsSync(join(box.cwd, '.mcp.json')), false);
});

test('names derived from the server, and usage mistakes', (t) => {
  const box = sandbox(t);
  const print = (server: string[]) =>
    Object.keys(JSON.parse(box.run(['cursor', '--print', '--', ...server]).stdout).mcpServers)[0];
  assert.equal(
    print(['npx', '-y', '@modelcontextprotocol/server-everything@2.0', 'stdio']),
    'server-everything',
  );
  assert.equal(print(['node', '/srv/weather.mjs']), 'weather');
  assert.equal(print(['my-server']), 'my-server');

  for (const [args, message] of [
    [['cursor'], /give the server: mcp-proxy install CLIENT \[NAME\] -- COMMAND/],
    [['cursor', 'a', 'b', '--', 'x'], /install takes one name before the server, got a b/],
    [['emacs', '--', 'x'], /Allowed choices are claude-desktop, claude-code, vscode, cursor/],
    [['cursor', '-e', 'NOVALUE', '--', 'x'], /--env takes KEY=VALUE, got "NOVALUE"/],
  ] as [string[], RegExp][]) {
    const run = box.run(args);
    assert.equal(run.code, 1, args.join(' '));
    assert.match(run.stderr, message);
  }
  assert.equal(existsSync(join(box.home, '.cursor')), false);
});

test('the entry written starts a server a real client can call', (t) => {
  const box = sandbox(t);
  const file = join(box.home, 'mcp.json');
  const run = box.run([
    'cursor',
    'echo',
    '--config',
    file,
    '--',
    process.execPath,
    factoryBin,
    '-p',
    'echo',
  ]);
  assert.equal(run.code, 0, run.stderr);
  const { command, args } = readJson(file).mcpServers.echo as { command: string; args: string[] };
  const call = spawnSync(
    process.execPath,
    [
      clientBin,
      'call',
      'echo',
      '--arg',
      'message=installed',
      '--protocol',
      '2025-11-25',
      '--quiet-server',
      '--',
      command,
      ...args,
    ],
    { env: box.env, encoding: 'utf8', timeout: 120_000 },
  );
  assert.equal(call.status, 0, call.stderr);
  assert.equal(JSON.parse(call.stdout).content[0].text, 'installed');
});

test('default paths per platform (the macOS and Windows ones cannot run here)', () => {
  const place = { home: '/Users/ada', cwd: '/work/p', env: {} };
  assert.equal(
    defaultConfigPath('claude-desktop', { ...place, platform: 'darwin' }),
    '/Users/ada/Library/Application Support/Claude/claude_desktop_config.json',
  );
  assert.equal(
    defaultConfigPath('claude-desktop', {
      ...place,
      platform: 'linux',
      env: { XDG_CONFIG_HOME: '/x' },
    }),
    '/x/Claude/claude_desktop_config.json',
  );
  assert.equal(
    defaultConfigPath('cursor', { ...place, platform: 'darwin' }),
    '/Users/ada/.cursor/mcp.json',
  );
  assert.equal(
    defaultConfigPath('vscode', { ...place, platform: 'darwin' }),
    '/work/p/.vscode/mcp.json',
  );
});
