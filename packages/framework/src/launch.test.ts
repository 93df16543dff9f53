/**
 * The bins' launcher (`@mcpbox/framework/launch`, packages/framework/launch.js) and Node's
 * compile cache it turns on: the compiled bins (`npm run build`, MCPBOX_BIN=dist), started with
 * a real SDK client over stdio, on the Node running the tests and on Node 22 from the npm package
 * `node@22` (Node 20 has no compile cache; on 22 it is what makes a stdio server start fast),
 * and the HTTP endpoint on Node 22, whose streamed answers leave a socket differently.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import module from 'node:module';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { compileCacheDirectories, compileCacheDirectory } from '@mcpbox/framework/launch';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { RAW_INITIALIZE } from './__fixtures__/testServer.ts';

const FACTORY_BIN = fileURLToPath(new URL('../../proxy/bin/mcp-factory.js', import.meta.url));

let scratch: string;
before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'mcpbox-launch-'));
});
after(async () => {
  await rm(scratch, { recursive: true, force: true });
});

let dirs = 0;
/** A fresh XDG_CACHE_HOME, and where our cache goes in it. */
function cacheHome(): { home: string; cache: string } {
  const home = join(scratch, `cache-${++dirs}`);
  return { home, cache: join(home, 'mcpbox', 'node-compile-cache') };
}

/** The compiled bins' environment: no `mcpbox-source` condition (that would load the sources). */
function binEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), ...extra };
  env.MCPBOX_BIN = 'dist';
  env.NODE_OPTIONS = (env.NODE_OPTIONS ?? '').replace(/--conditions=mcpbox-source/g, '').trim();
  return env;
}

/** Files below `dir` (the cache keeps one per module in a directory per Node version). */
function cacheFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name);
}

/** `mcp-factory -p echo` on `node`, answering a real SDK client; returns its stderr. */
async function echoOverStdio(node: string, env: Record<string, string>): Promise<string> {
  const transport = new StdioClientTransport({
    command: node,
    args: [FACTORY_BIN, '-p', 'echo'],
    env: binEnv(env),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const client = new Client({ name: 'launch-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    const result = await client.callTool({ name: 'echo', arguments: { message: 'hi' } });
    assert.deepEqual(result.content, [{ type: 'text', text: 'hi' }]);
  } finally {
    await client.close();
  }
  return stderr;
}

test('the cache lives in XDG_CACHE_HOME when it is an absolute path, else in ~/.cache', () => {
  assert.equal(
    compileCacheDirectory({ XDG_CACHE_HOME: '/var/cache/u' }),
    '/var/cache/u/mcpbox/node-compile-cache',
  );
  const fallback = join(homedir(), '.cache', 'mcpbox', 'node-compile-cache');
  assert.equal(compileCacheDirectory({ XDG_CACHE_HOME: 'relative/dir' }), fallback);
  assert.equal(compileCacheDirectory({}), fallback);
});

test('the directories code may be loaded from: ours, and NODE_COMPILE_CACHE made absolute', () => {
  assert.deepEqual(compileCacheDirectories({ XDG_CACHE_HOME: '/c' }), [
    '/c/mcpbox/node-compile-cache',
  ]);
  assert.deepEqual(compileCacheDirectories({ XDG_CACHE_HOME: '/c', NODE_COMPILE_CACHE: 'ncc' }), [
    '/c/mcpbox/node-compile-cache',
    join(process.cwd(), 'ncc'),
  ]);
});

test(`on this Node (${process.version}) a start fills the cache exactly when Node has one`, async () => {
  const { home, cache } = cacheHome();
  await echoOverStdio(process.execPath, { XDG_CACHE_HOME: home });
  const nodeHasCache = typeof (module as { enableCompileCache?: unknown }).enableCompileCache;
  assert.equal(cacheFiles(cache).length > 0, nodeHasCache === 'function');
});

describe('on Node 22', () => {
  let node22 = '';
  let unavailable = '';
  before(async () => {
    // The npm package `node@22` (the registry is reachable where the tests run; cached after).
    try {
      const { stdout } = await promisify(execFile)(
        'npx',
        ['-y', '-p', 'node@22', 'node', '-p', 'process.execPath'],
        { timeout: 180_000, env: { ...process.env, NODE_OPTIONS: '' } },
      );
      node22 = stdout.trim().split('\n').at(-1) ?? '';
    } catch (error) {
      unavailable = `npx -p node@22 failed: ${error instanceof Error ? error.message : error}`;
    }
  });

  test('the first start fills the cache, the next loads our bundles from it', async (t) => {
    if (unavailable) return t.skip(unavailable);
    const { home, cache } = cacheHome();
    await echoOverStdio(node22, { XDG_CACHE_HOME: home });
    assert.ok(cacheFiles(cache).length > 0, `no cache entries in ${cache}`);
    const stderr = await echoOverStdio(node22, {
      XDG_CACHE_HOME: home,
      NODE_DEBUG_NATIVE: 'COMPILE_CACHE',
    });
    assert.match(stderr, /cache for \S+\/proxy\/dist\/bundle\/factory\.js was accepted/);
  });

  test('NODE_DISABLE_COMPILE_CACHE=1 keeps it off; an unusable directory only leaves it off', async (t) => {
    if (unavailable) return t.skip(unavailable);
    const disabled = cacheHome();
    await echoOverStdio(node22, { XDG_CACHE_HOME: disabled.home, NODE_DISABLE_COMPILE_CACHE: '1' });
    assert.deepEqual(cacheFiles(disabled.cache), []);
    const notADirectory = join(scratch, 'a-file');
    writeFileSync(notADirectory, '');
    // mcpbox/… below a regular file cannot be created: the server starts and answers anyway.
    await echoOverStdio(node22, { XDG_CACHE_HOME: notADirectory });
  });

  test('over HTTP it answers clients of both eras (a 2025 answer streamed as server-sent events)', async (t) => {
    if (unavailable) return t.skip(unavailable);
    const child = spawn(node22, [FACTORY_BIN, '-p', 'echo', '--http', '0'], {
      env: binEnv({ XDG_CACHE_HOME: cacheHome().home }),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    t.after(() => child.kill('SIGKILL'));
    let stderr = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (chunk) => {
        stderr += String(chunk);
        const found = /MCP endpoint:\s+(\S+)/.exec(stderr);
        if (found) resolve(found[1] as string);
      });
      child.once('exit', () => reject(new Error(`mcp-factory exited:\n${stderr}`)));
    });
    for (const pin of [undefined, '2026-07-28' as const]) {
      const options = pin && { versionNegotiation: { mode: { pin } } };
      const client = new Client(
        { name: `launch-test-${pin ?? '2025'}`, version: '1.0.0' },
        options,
      );
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      try {
        const result = await client.callTool({ name: 'echo', arguments: { message: 'hi' } });
        assert.deepEqual(result.content, [{ type: 'text', text: 'hi' }]);
      } finally {
        await client.close();
      }
    }
  });

  test('a server its client SIGKILLs has written the cache shortly after starting', async (t) => {
    if (unavailable) return t.skip(unavailable);
    const { home, cache } = cacheHome();
    const child = spawn(node22, [FACTORY_BIN, '-p', 'echo'], {
      env: binEnv({ XDG_CACHE_HOME: home }),
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    t.after(() => child.kill('SIGKILL'));
    child.stdin.write(`${JSON.stringify(RAW_INITIALIZE)}\n`);
    const answer = await new Promise<string>((resolve) => child.stdout.once('data', resolve));
    assert.match(String(answer), /"serverInfo"/);
    // Written by the flush a moment after start-up, while the server runs: poll for it.
    for (let i = 0; i < 200 && cacheFiles(cache).length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    assert.ok(cacheFiles(cache).length > 0, 'the cache was written before the SIGKILL');
  });
});
