/**
 * What a checkout runs when nobody asks for the sources: in a fresh checkout (a copy of this
 * working tree, no dist/), the bins say how to build, `npm start` builds, serves the built code,
 * and prints a stdio client configuration that starts the built bin, which a real SDK client then
 * talks to with a client's environment. Which code ran is read from the modules each process
 * loaded (scripts/__fixtures__/traceModules.ts), not from timing; MCPBOX_BIN=source still serves
 * the sources. The bins of a checkout used to run the sources through tsx, ~1.5-1.9 s to a stdio
 * server's first answer, past the Vercel AI SDK's 1 s probe.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { endProcessGroup } from '@mcpbox/test-utils';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { freshCheckout } from './__fixtures__/freshCheckout.ts';
import { traceModules } from './__fixtures__/traceModules.ts';
import { userEnv } from './__fixtures__/userEnv.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STDIO_CONFIG = /Or let the client start it over stdio:\n([\s\S]*?\n})\n/;

interface Launch {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

type After = { after(fn: () => unknown): void };

let checkout = '';
let traces = 0;
/** A new trace file and the environment that fills it (NODE_OPTIONS, TRACE_MODULES). */
function traced(extra: Record<string, string> = {}) {
  const file = join(checkout, '.traces', `modules-${++traces}.txt`);
  const env = { NODE_OPTIONS: `--import=${traceModules(join(checkout, '.traces'))}` };
  return { env: { ...env, TRACE_MODULES: file, ...extra }, modules: () => readModules(file) };
}

function readModules(file: string): string[] {
  return readFileSync(file, 'utf8').split('\n').filter(Boolean);
}

/** The copy's modules among `modules`, as paths inside it (`packages/proxy/dist/…`). */
function ours(modules: string[]): string[] {
  const base = pathToFileURL(checkout).href + '/';
  return modules.filter((url) => url.startsWith(base)).map((url) => url.slice(base.length));
}

/** Asserts the process ran the built code of mcp-factory: its bundle, no source, no tsx. */
function assertRanDist(modules: string[]) {
  const mine = ours(modules);
  assert.ok(mine.includes('packages/proxy/dist/bundle/factory.js'), mine.join('\n'));
  assert.deepEqual(
    mine.filter((path) => /^packages\/[^/]+\/src\//.test(path)),
    [],
    'no TypeScript source ran',
  );
  assert.deepEqual(
    modules.filter((url) => /\/node_modules\/tsx\//.test(url)),
    [],
    'tsx was not loaded',
  );
}

/**
 * `npm start` in the copy until it prints its stdio configuration (or exits): its stderr and the
 * printed launch. It is ended with its process group after the test.
 */
async function npmStart(t: After, env: Record<string, string>) {
  const child = spawn('npm', ['start', '--', '--port', '0', '--health-port', '0'], {
    cwd: checkout,
    env: userEnv({ HOME: join(checkout, '.home'), ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  t.after(() => endProcessGroup(child, exited));
  let stderr = '';
  const printed = await new Promise<string | undefined>((resolve) => {
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const found = STDIO_CONFIG.exec(stderr);
      if (found) resolve(found[1]);
    });
    void exited.then(() => resolve(undefined));
  });
  assert.ok(printed, `npm start printed no stdio configuration:\n${stderr}`);
  const servers = (JSON.parse(printed) as { mcpServers: Record<string, Launch> }).mcpServers;
  return { stderr, launch: Object.values(servers)[0] };
}

/** `node <bin> args` in the copy with a user's environment, to its exit. */
async function runBin(bin: string, args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [join(checkout, bin), ...args], {
    cwd: checkout,
    env: userEnv({ HOME: join(checkout, '.home'), ...env }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, stderr };
}

describe('a fresh checkout runs the built code', () => {
  let remove = () => {};
  before(() => {
    ({ dir: checkout, remove } = freshCheckout(ROOT));
    mkdirSync(join(checkout, '.traces'));
    mkdirSync(join(checkout, '.home'));
  });
  after(() => remove());

  test('before a build, a bin says how to build or how to run the sources', async () => {
    const unbuilt = await runBin('packages/proxy/bin/mcp-factory.js', ['-p', 'echo']);
    assert.equal(unbuilt.code, 1);
    assert.match(
      unbuilt.stderr,
      /^mcp-factory: \S+\/packages\/proxy\/dist is not built: run `npm run build` in \S+ \(`npm start` builds it too\), or set MCPBOX_BIN=source/,
    );
    const bogus = await runBin('packages/ipybox/bin/ipybox.js', [], { MCPBOX_BIN: 'src' });
    assert.equal(bogus.code, 1);
    assert.match(bogus.stderr, /^ipybox: MCPBOX_BIN must be 'dist' .* or 'source' .*, not "src"/);
  });

  test('npm start builds, serves dist/, and its stdio configuration starts the built bin', async (t) => {
    const start = traced();
    const served = await npmStart(t, start.env);
    assert.match(
      served.stderr,
      /npm start: building framework, ipybox, proxy \(packages\/framework\/dist is not built\)/,
    );
    assertRanDist(start.modules());

    // As a client starts it: the printed command and arguments, the SDK's default environment.
    assert.equal(served.launch.env, undefined, 'nothing asks for the sources');
    assert.equal(served.launch.args[0], join(checkout, 'packages/proxy/bin/mcp-factory.js'));
    const stdio = traced();
    const transport = new StdioClientTransport({
      command: served.launch.command,
      args: served.launch.args,
      env: { HOME: join(checkout, '.home'), ...stdio.env },
      stderr: 'ignore',
    });
    const client = new Client({ name: 'start-test', version: '1.0.0' });
    await client.connect(transport);
    t.after(() => client.close());
    const result = await client.callTool({ name: 'echo', arguments: { message: 'hi' } });
    assert.deepEqual(result.content, [{ type: 'text', text: 'hi' }]);
    await client.close();
    assertRanDist(stdio.modules());
  });

  test('npm start builds again only what changed since the build, and what is built on it', async (t) => {
    const state = await import(pathToFileURL(join(checkout, 'scripts/build-state.mjs')).href);
    assert.equal(state.staleBuild(), undefined, 'just built');
    const future = new Date(Date.now() + 60_000);
    // A test is not built: touching one needs no build.
    utimesSync(join(checkout, 'packages/ipybox/src/cli/version.test.ts'), future, future);
    assert.equal(state.staleBuild(), undefined);
    utimesSync(join(checkout, 'packages/ipybox/src/index.ts'), future, future);
    assert.deepEqual(state.staleBuild(), {
      names: ['ipybox', 'proxy'],
      reason: 'packages/ipybox/src/index.ts changed since packages/ipybox/dist was built',
    });
    utimesSync(join(checkout, 'plugins/echo.ts'), future, future);
    assert.deepEqual(state.staleBuild().names, ['ipybox', 'proxy']);
    // Served as it is when nothing changed: no build line before the server's output.
    utimesSync(join(checkout, 'packages/ipybox/src/index.ts'), new Date(0), new Date(0));
    utimesSync(join(checkout, 'plugins/echo.ts'), new Date(0), new Date(0));
    const served = await npmStart(t, traced().env);
    assert.doesNotMatch(served.stderr, /building/);
  });

  test('MCPBOX_BIN=source npm start serves the sources, and its configuration asks for them', async (t) => {
    const start = traced({ MCPBOX_BIN: 'source' });
    const served = await npmStart(t, start.env);
    assert.deepEqual(served.launch.env, { MCPBOX_BIN: 'source' });
    assert.ok(ours(start.modules()).includes('packages/proxy/src/cli/factory.ts'));
  });
});
