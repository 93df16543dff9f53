/**
 * A real stdio MCP server (server-memory, which writes its knowledge graph to a file) started
 * through `sandboxStdioServer` and used over real stdio by the framework's client pool: tools
 * work, and the server can write only where its sandbox settings allow.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { UpstreamPool } from '@mcpbox/framework';
import { sandboxStdioServer } from './mcpServerSandbox.ts';
import { SandboxConfigError } from './sandboxConfig.ts';

const MEMORY = fileURLToPath(
  new URL('../../../../node_modules/.bin/mcp-server-memory', import.meta.url),
);
const silent = { debug() {}, info() {}, warn() {}, error() {} };

describe('a sandboxed stdio MCP server', () => {
  let root: string;
  let pool: UpstreamPool;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'sandbox-mcp-'));
    pool = new UpstreamPool({ logger: silent });
  });
  after(async () => {
    await pool?.closeAll();
    await rm(root, { recursive: true, force: true });
  });

  async function createEntity(server: string, name: string) {
    return pool.get(server).callTool('create_entities', {
      entities: [{ name, entityType: 'test', observations: ['seen'] }],
    });
  }

  /** The server's tool call fails on a read-only file system, and `file` is not written. */
  async function assertWriteRefused(server: string, name: string, file: string) {
    const result = await createEntity(server, name).catch((error: Error) => ({
      isError: true,
      content: [{ type: 'text', text: error.message }],
    }));
    assert.equal(result.isError, true);
    assert.match(JSON.stringify(result.content), /EROFS|read-only file system/i);
    await assert.rejects(readFile(file), { code: 'ENOENT' });
  }

  test('works, and writes where its settings allow', async () => {
    const allowed = join(root, 'allowed');
    const file = join(allowed, 'memory.jsonl');
    await mkdir(allowed);
    const params = await sandboxStdioServer(
      { command: MEMORY, env: { MEMORY_FILE_PATH: file } },
      { filesystem: { allowWrite: [allowed] } },
    );
    await pool.define('memory', params);
    const result = await createEntity('memory', 'inside');
    assert.notEqual(result.isError, true, JSON.stringify(result));
    assert.match(await readFile(file, 'utf8'), /"inside"/);
  });

  test('a write outside its allowed paths fails inside the server', async () => {
    const file = join(root, 'not-allowed.jsonl');
    const params = await sandboxStdioServer({ command: MEMORY, env: { MEMORY_FILE_PATH: file } });
    await pool.define('confined', params);
    await assertWriteRefused('confined', 'outside', file);
  });

  test("a write into the host's compile cache fails even inside an allowed path", async (t) => {
    // The host's cache inside what the server may write (as under an allowWrite of `~`): code
    // written there would run in the next start of our bins, outside every sandbox.
    const allowed = join(root, 'home');
    const saved = process.env.XDG_CACHE_HOME;
    process.env.XDG_CACHE_HOME = join(allowed, '.cache');
    t.after(() => {
      if (saved === undefined) delete process.env.XDG_CACHE_HOME;
      else process.env.XDG_CACHE_HOME = saved;
    });
    const cache = join(allowed, '.cache', 'mcpbox', 'node-compile-cache');
    await mkdir(cache, { recursive: true });
    const file = join(cache, 'planted.jsonl');
    const params = await sandboxStdioServer(
      { command: MEMORY, env: { MEMORY_FILE_PATH: file } },
      { filesystem: { allowWrite: [allowed] } },
    );
    await pool.define('planter', params);
    await assertWriteRefused('planter', 'planted', file);
  });

  test('bad settings fail before the server is defined', async () => {
    await assert.rejects(
      sandboxStdioServer({ command: MEMORY }, { network: { allowedDomains: 'x' as never } }),
      (error: unknown) =>
        error instanceof SandboxConfigError && /network\.allowedDomains/.test(error.message),
    );
  });
});
