/**
 * The published packages, as a user gets them: every workspace package packed with `npm pack`
 * (from the dist/ that `npm run build` wrote), the tarballs installed into an empty project
 * outside the repository, offline (their registry dependencies from the npm cache the workspace
 * install filled), and there: each bin, the framework from a plain .mjs, the shipped
 * declarations under `tsc --strict`, a `.ts` plugin from a folder outside the project, and the
 * errors of a missing optional package or a plugin's missing import.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
// Type only (erased at run time): the test drives the installed tarballs, never the sources.
import type { Era } from '@mcpbox/framework';
import { endProcessGroup } from '@mcpbox/test-utils';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { installOffline } from './__fixtures__/offlineProject.ts';
import { traceModules } from './__fixtures__/traceModules.ts';
import { userEnv } from './__fixtures__/userEnv.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PACKAGES = ['framework', 'proxy', 'ipybox'] as const;
const VERSION = (name: string): string =>
  JSON.parse(readFileSync(join(ROOT, 'packages', name, 'package.json'), 'utf8')).version;

/** The packed tarballs of `names`, installed offline into a new project `work/name`. */
async function project(work: string, name: string, names: readonly string[], extra: string[] = []) {
  const dir = join(work, name);
  const tarballs = Object.fromEntries(
    names.map((pkg) => [`@mcpbox/${pkg}`, join(work, `mcpbox-${pkg}-${VERSION(pkg)}.tgz`)]),
  );
  await installOffline(dir, ROOT, tarballs, extra, userEnv());
  return dir;
}

async function connect(
  t: { after(fn: () => unknown): void },
  command: string,
  args: string[],
  era: Era,
  env: Record<string, string>,
  cwd: string,
): Promise<Client> {
  const transport = new StdioClientTransport({
    command,
    args,
    env: userEnv(env),
    cwd,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client(
    { name: 'pack-install-test', version: '1.0.0' },
    { versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: '2026-07-28' } } },
  );
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`${command} ${args.join(' ')} did not connect: ${error}\n${stderr}`);
  }
  t.after(() => client.close());
  return client;
}

/**
 * Every content block's text, joined with nothing: not test-utils' `textOf`, which keeps only
 * `text` blocks and joins them with newlines, so a result of several blocks would read otherwise.
 */
function textOf(result: unknown): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content.map((block) => block.text ?? '').join('');
}

/** Runs a command to completion, never throwing: exit code and output. */
async function outcome(command: string, args: string[], cwd: string, env = userEnv()) {
  try {
    const { stdout, stderr } = await run(command, args, { cwd, env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

describe('packed packages installed into an empty project', () => {
  let work: string;
  let app: string;
  let home: string;
  const bin = (name: string) => join(app, 'node_modules', '.bin', name);

  before(
    async () => {
      for (const name of PACKAGES) {
        assert.ok(
          existsSync(join(ROOT, 'packages', name, 'dist', 'index.js')),
          `packages/${name}/dist is missing: run \`npm run build\` first (npm test does)`,
        );
      }
      work = mkdtempSync(join(tmpdir(), 'mcpbox-pack-'));
      home = join(work, 'home');
      mkdirSync(home);
      await run(
        'npm',
        [
          'pack',
          '--ignore-scripts',
          '--pack-destination',
          work,
          ...PACKAGES.flatMap((name) => ['-w', `packages/${name}`]),
        ],
        { cwd: ROOT, env: userEnv() },
      );
      // zod as the README's `npm install @mcpbox/framework zod` has it.
      app = await project(work, 'app', PACKAGES, ['zod']);
    },
    { timeout: 600_000 },
  );
  after(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test('the tarballs ship dist, bins and runtime assets, not sources or tests', () => {
    for (const name of PACKAGES) {
      const dir = join(app, 'node_modules', '@mcpbox', name);
      assert.equal(existsSync(join(dir, 'src')), false, `${name} ships src/`);
      assert.ok(existsSync(join(dir, 'dist', 'index.d.ts')), `${name} has no declarations`);
    }
    const ipybox = join(app, 'node_modules', '@mcpbox', 'ipybox', 'dist');
    for (const asset of [
      'kernel/bootstrap.py',
      'python/_runtime.py',
      'sandbox/socat-with-parent.sh',
    ]) {
      assert.ok(existsSync(join(ipybox, asset)), asset);
    }
    const proxy = join(app, 'node_modules', '@mcpbox', 'proxy', 'dist', 'plugins');
    assert.deepEqual(readdirSync(proxy).sort(), [
      'code_mode.js',
      'demo_full',
      'echo.js',
      'greet.js',
      'ipybox.js',
    ]);
  });

  test('every bin prints its package version', async () => {
    const bins = {
      'mcp-factory': 'proxy',
      'mcp-proxy': 'proxy',
      'mcp-client': 'proxy',
      ipybox: 'ipybox',
    };
    for (const [name, pkg] of Object.entries(bins)) {
      const { stdout } = await run(bin(name), ['--version'], { cwd: app, env: userEnv() });
      assert.equal(stdout.trim(), VERSION(pkg), name);
    }
  });

  for (const era of ['legacy', 'modern'] as const) {
    test(`mcp-factory -p echo answers a ${era} SDK client over stdio, without loading tsx`, async (t) => {
      const loaded = join(work, `modules-${era}.txt`);
      const client = await connect(
        t,
        bin('mcp-factory'),
        ['-p', 'echo', 'greet', 'demo_full'],
        era,
        { HOME: home, NODE_OPTIONS: `--import=${traceModules(work)}`, TRACE_MODULES: loaded },
        app,
      );
      const { tools } = await client.listTools();
      assert.ok(
        tools.some((tool) => tool.name === 'echo'),
        tools.map((tool) => tool.name).join(),
      );
      const result = await client.callTool({ name: 'echo', arguments: { message: 'from npm' } });
      assert.equal(textOf(result), 'from npm');
      const urls = readFileSync(loaded, 'utf8');
      assert.match(urls, /@mcpbox\/proxy\/dist\/plugins\/echo\.js/, 'the trace saw the plugin');
      assert.doesNotMatch(urls, /node_modules\/tsx\//);
    });
  }

  test('mcp-proxy serve, then mcp-proxy status against it', async (t) => {
    const token = 'pack-install-token';
    const child: ChildProcess = spawn(
      bin('mcp-proxy'),
      ['serve', '--http', '0', '--mgmt-port', '0', '--mgmt-token', token, '-a', 'echo'],
      {
        cwd: app,
        env: userEnv({ HOME: home }),
        stdio: ['ignore', 'ignore', 'pipe'],
        detached: true,
      },
    );
    const exited = new Promise((resolve) => child.once('exit', resolve));
    t.after(() => endProcessGroup(child, exited));
    let stderr = '';
    const port = await new Promise<string>((resolve, reject) => {
      child.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
        const found = /management API http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr);
        if (found) resolve(found[1]);
      });
      void exited.then(() => reject(new Error(`mcp-proxy exited:\n${stderr}`)));
    });
    const { stdout } = await run(
      bin('mcp-proxy'),
      ['status', '--mgmt-port', port, '--mgmt-token', token],
      {
        cwd: app,
        env: userEnv({ HOME: home }),
      },
    );
    assert.match(stdout, /^ {2}echo: echo, echo_upper$/m, stdout);
  });

  test('ipybox runs a cell in a real kernel', async (t) => {
    const workspace = join(work, 'ipybox-workspace');
    const client = await connect(
      t,
      bin('ipybox'),
      ['--workspace', workspace, '--log-level', 'warning'],
      'legacy',
      { HOME: home },
      app,
    );
    const result = await client.callTool({
      name: 'execute_ipython_cell',
      arguments: { code: 'import sys\nprint(6 * 7, sys.version_info.major)' },
    });
    assert.match(textOf(result), /42 3/);
  });

  test('mcp-client call prints the result of a tool of the installed mcp-factory', async () => {
    const { stdout } = await run(
      bin('mcp-client'),
      [
        'call',
        'echo',
        '--arg',
        'message=hi',
        '--quiet-server',
        '--',
        bin('mcp-factory'),
        '-p',
        'echo',
      ],
      { cwd: app, env: userEnv({ HOME: home }) },
    );
    assert.equal(textOf(JSON.parse(stdout)), 'hi');
  });

  test("a plain .mjs imports @mcpbox/framework and serves a tool (each of the package README's servers)", async (t) => {
    const readme = readFileSync(
      join(app, 'node_modules', '@mcpbox', 'framework', 'README.md'),
      'utf8',
    );
    // The plain server, and the one that turns the compile cache on first.
    const servers = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((match) => match[1]);
    assert.equal(servers.length, 2, 'the README has two js servers');
    for (const server of servers) {
      writeFileSync(join(app, 'server.mjs'), server);
      const client = await connect(t, process.execPath, ['server.mjs'], 'modern', {}, app);
      const result = await client.callTool({ name: 'hello', arguments: { name: 'npm' } });
      assert.equal(textOf(result), 'Hello, npm!');
      await client.close();
    }
  });

  test('a .ts consumer type-checks with tsc --strict against the shipped declarations', async () => {
    writeFileSync(
      join(app, 'consumer.ts'),
      [
        "import { createServer, loadConfig, type PluginServer } from '@mcpbox/framework';",
        "import { enableCompileCache } from '@mcpbox/framework/launch';",
        "import { CodeExecutor } from '@mcpbox/ipybox';",
        "import { PluginWatcher } from '@mcpbox/proxy';",
        "import { z } from 'zod';",
        '',
        'const server = createServer(loadConfig({}));',
        "server.registerTool('add', { inputSchema: { a: z.number(), b: z.number() } }, ({ a, b }) =>",
        '  String(a + b),',
        ');',
        'export function register(plugin: PluginServer): void {',
        "  plugin.registerTool('twice', { inputSchema: { n: z.number() } }, ({ n }) => String(n * 2));",
        '}',
        'export const kinds: unknown[] = [CodeExecutor, PluginWatcher];',
        '// Real types, not `any`: each line below must be an error.',
        '// @ts-expect-error a config, not a number',
        'createServer(42);',
        "// @ts-expect-error 'a' is a number",
        "server.registerTool('bad', { inputSchema: { a: z.number() } }, ({ a }) => a.toUpperCase());",
        '// @ts-expect-error the result may be undefined (Node 20 has no compile cache)',
        'enableCompileCache().status;',
        '',
      ].join('\n'),
    );
    // The workspace's TypeScript and Node types (the npm cache holds no packument to install
    // them offline); modules resolve from the project, so against what it installed.
    const checked = await outcome(
      process.execPath,
      [
        join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
        '--typeRoots',
        join(ROOT, 'node_modules', '@types'),
        '--strict',
        '--noEmit',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--target',
        'es2022',
        '--types',
        'node',
        'consumer.ts',
      ],
      app,
    );
    // Only the consumer and the shipped declarations must be clean: a third-party package's
    // declarations (sandbox-runtime's import of untyped node-forge) are not ours to fix.
    const ours = (checked.stdout + checked.stderr)
      .split('\n')
      .filter((line) => /^(consumer\.ts|node_modules\/@mcpbox\/)/.test(line));
    assert.deepEqual(ours, [], checked.stdout + checked.stderr);
  });

  test('mcp-factory loads a .ts plugin from a folder outside the project', async (t) => {
    const outside = mkdtempSync(join(tmpdir(), 'mcpbox-outside-'));
    t.after(() => rmSync(outside, { recursive: true, force: true }));
    const plugin = join(outside, 'weather.ts');
    writeFileSync(
      plugin,
      [
        "import type { PluginServer } from '@mcpbox/framework';",
        "import { z } from 'zod';",
        'export function register(server: PluginServer): void {',
        "  server.registerTool('forecast', { inputSchema: { city: z.string() } }, ({ city }: { city: string }) =>",
        "    'Sunny in ' + city,",
        '  );',
        '}',
        '',
      ].join('\n'),
    );
    const client = await connect(
      t,
      bin('mcp-factory'),
      ['-p', plugin],
      'modern',
      { HOME: home },
      outside,
    );
    const result = await client.callTool({ name: 'forecast', arguments: { city: 'Oslo' } });
    assert.equal(textOf(result), 'Sunny in Oslo');
  });

  test('a plugin importing a package nobody installed: mcp-factory names it and exits 1', async (t) => {
    const outside = mkdtempSync(join(tmpdir(), 'mcpbox-outside-'));
    t.after(() => rmSync(outside, { recursive: true, force: true }));
    const plugin = join(outside, 'needs.ts');
    writeFileSync(
      plugin,
      "import 'left-pad-not-installed';\nexport function register(): void {}\n",
    );
    const failed = await outcome(
      bin('mcp-factory'),
      ['-p', plugin],
      outside,
      userEnv({ HOME: home }),
    );
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /run `npm install left-pad-not-installed` in /, failed.stderr);
  });

  test('without @mcpbox/ipybox installed, -p ipybox says which package to install', async () => {
    const lean = await project(work, 'lean', ['framework', 'proxy']);
    const failed = await outcome(
      join(lean, 'node_modules', '.bin', 'mcp-factory'),
      ['-p', 'ipybox'],
      lean,
      userEnv({ HOME: home }),
    );
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /npm install @mcpbox\/ipybox/, failed.stderr);
  });
});
