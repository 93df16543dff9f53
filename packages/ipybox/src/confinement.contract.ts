/**
 * What code in a kernel can reach, as one contract run twice: against a sandboxed kernel (every
 * escape attempt fails, with the reason in the cell's error or output) and against an ordinary
 * kernel (the same attempts succeed), so the suite shows what the sandbox changes. Real attempts
 * only: a loopback HTTP server of the test, files on disk, `!curl`, a subprocess, a tool call
 * through a generated module to a real upstream MCP server.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { UpstreamPool } from '@mcpbox/framework';
import { CodeExecutor } from './executor.ts';
import { CodeExecutionError, type KernelError } from './kernel/errors.ts';
import type { ExecutionResult } from './kernel/execution.ts';
import { generateMcpSources } from './mcptools/generate.ts';
import { ToolServer } from './toolserver/toolServer.ts';

const EVERYTHING = fileURLToPath(
  new URL('../../../node_modules/.bin/mcp-server-everything', import.meta.url),
);
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const GREETING = 'hello from the host';
const SECRET = 'SECRET_TOKEN=do-not-leak-42';

/** A cell's outcome as a user reads it: its output, or the exception's name and message. */
async function attempt(executor: CodeExecutor, code: string): Promise<string> {
  try {
    const result: ExecutionResult = await executor.execute(code, { timeout: 30_000 });
    return result.text;
  } catch (error) {
    if (error instanceof CodeExecutionError) return `${error.ename}: ${error.evalue}`;
    throw error;
  }
}

/** Python that fetches `url`: through the sandbox's proxy when there is one, else directly. */
function fetchCell(url: string, { viaProxy }: { viaProxy: boolean }): string {
  const open = `print(_opener.open(${JSON.stringify(url)}, timeout=10).read().decode())`;
  return [
    'import os, urllib.request as _u',
    `_proxy = ${viaProxy ? "os.environ.get('HTTP_PROXY')" : 'None'}`,
    "_opener = _u.build_opener(_u.ProxyHandler({'http': _proxy} if _proxy else {}))",
    // urllib skips the proxy for NO_PROXY hosts (the sandbox lists loopback there); put them back
    // afterwards, so later cells and their subprocesses see the kernel's environment unchanged.
    "_saved = {k: os.environ.pop(k) for k in ('no_proxy', 'NO_PROXY') if k in os.environ}",
    'try:',
    `    ${open}`,
    'finally:',
    '    os.environ.update(_saved)',
  ].join('\n');
}

export function confinementContract(mode: 'sandboxed' | 'unsandboxed'): void {
  const sandboxed = mode === 'sandboxed';

  describe(`what kernel code can reach (${mode})`, () => {
    let workspace: string;
    let outside: string;
    let http: Server;
    let port: number;
    let tools: ToolServer;
    let executor: CodeExecutor;
    const savedCacheHome = process.env.XDG_CACHE_HOME;

    before(async () => {
      workspace = await mkdtemp(join(tmpdir(), 'sandbox-ws-'));
      // The host's compile cache inside the workspace, as for `--workspace ~`.
      process.env.XDG_CACHE_HOME = join(workspace, '.cache');
      outside = await mkdtemp(join(tmpdir(), 'sandbox-outside-'));
      await writeFile(join(workspace, '.env'), `${SECRET}\n`);
      http = createServer((_request, response) => response.end(GREETING));
      await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
      port = (http.address() as AddressInfo).port;
      const pool = new UpstreamPool({ logger: silent });
      await pool.define('everything', { command: EVERYTHING, args: ['stdio'] });
      // A Unix socket in the workspace: the one way out of the sandbox's empty network namespace.
      tools = await ToolServer.start({
        connections: pool,
        socketPath: join(workspace, '.tools.sock'),
        tcp: false,
        logger: silent,
      });
      tools.approval.policy = 'auto';
      await generateMcpSources('everything', {}, workspace, {
        listTools: () => pool.get('everything').listTools(),
      });
      executor = new CodeExecutor({
        workingDir: workspace,
        kernelEnv: tools.kernelEnv(),
        // The test server stands in for an allowed internet host: an IP literal with its port.
        sandbox: sandboxed ? { network: { allowedDomains: [`127.0.0.1:${port}`] } } : false,
      });
      await executor.start();
      await executor.execute('cells_survived = 0');
    });

    after(async () => {
      if (savedCacheHome === undefined) delete process.env.XDG_CACHE_HOME;
      else process.env.XDG_CACHE_HOME = savedCacheHome;
      await executor?.stop();
      await tools?.close();
      await new Promise((resolve) => http?.close(resolve));
      await rm(workspace, { recursive: true, force: true });
      await rm(outside, { recursive: true, force: true });
    });

    /** The kernel keeps its state after a failed attempt. */
    async function assertStillUsable(): Promise<void> {
      const result = await executor.execute('cells_survived += 1\nprint(cells_survived > 0)');
      assert.equal(result.text.trim(), 'True');
    }

    test('HTTP straight to a loopback service of the host', async () => {
      const output = await attempt(
        executor,
        fetchCell(`http://127.0.0.1:${port}/`, { viaProxy: false }),
      );
      if (sandboxed)
        assert.match(output, /URLError: .*(Connection refused|Network is unreachable)/);
      else assert.equal(output.trim(), GREETING);
      await assertStillUsable();
    });

    test('HTTP to an allowed host through the sandbox proxy', async () => {
      const output = await attempt(
        executor,
        fetchCell(`http://127.0.0.1:${port}/`, { viaProxy: true }),
      );
      assert.equal(output.trim(), GREETING);
    });

    test('HTTP to a host that is not allowed, through the proxy', async () => {
      // "localhost" is not on the allow list (and resolves to loopback, which the proxy refuses).
      const output = await attempt(
        executor,
        fetchCell(`http://localhost:${port}/`, { viaProxy: true }),
      );
      if (sandboxed) assert.match(output, /HTTPError: HTTP Error 403/);
      else assert.equal(output.trim(), GREETING);
      await assertStillUsable();
    });

    test('a raw TCP socket to the host', async () => {
      const output = await attempt(
        executor,
        `import socket\nwith socket.create_connection(('127.0.0.1', ${port}), timeout=5):\n    print('connected')`,
      );
      if (sandboxed)
        assert.match(output, /(ConnectionRefusedError|OSError): .*(refused|unreachable)/i);
      else assert.equal(output.trim(), 'connected');
      await assertStillUsable();
    });

    test('!curl from a shell command', async () => {
      const result = await executor.execute(`!curl -sS -m 10 http://127.0.0.1:${port}/`);
      if (sandboxed) {
        assert.match(result.text, /curl: \(7\) Failed to connect/);
        assert.doesNotMatch(result.text, new RegExp(GREETING));
      } else assert.equal(result.text.trim(), GREETING);
      await assertStillUsable();
    });

    test('write a file outside the workspace', async () => {
      const target = join(outside, 'escaped.txt');
      const output = await attempt(executor, `open(${JSON.stringify(target)}, 'w').write('x')`);
      if (sandboxed) {
        assert.match(output, /OSError: \[Errno 30\] Read-only file system/);
        await assert.rejects(readFile(target), { code: 'ENOENT' });
      } else assert.equal(await readFile(target, 'utf8'), 'x');
      await assertStillUsable();
    });

    test('write outside the workspace from a subprocess', async () => {
      const target = join(outside, 'from-subprocess.txt');
      const output = await attempt(
        executor,
        `import subprocess\nr = subprocess.run(['sh', '-c', 'echo y > ${target}'], capture_output=True, text=True)\nprint(r.returncode, r.stderr)`,
      );
      if (sandboxed) {
        assert.match(output, /Read-only file system/);
        await assert.rejects(readFile(target), { code: 'ENOENT' });
      } else assert.equal(await readFile(target, 'utf8'), 'y\n');
      await assertStillUsable();
    });

    test("plant code in the host's compile cache inside the workspace", async () => {
      // What is written there runs in the next start of our bins, outside the sandbox.
      const target = join(workspace, '.cache', 'mcpbox', 'node-compile-cache', 'planted');
      const output = await attempt(
        executor,
        `import os\nos.makedirs(os.path.dirname(${JSON.stringify(target)}), exist_ok=True)\nopen(${JSON.stringify(target)}, 'w').write('x')`,
      );
      if (sandboxed) {
        assert.match(output, /OSError: \[Errno 30\] Read-only file system/);
        await assert.rejects(readFile(target), { code: 'ENOENT' });
      } else assert.equal(await readFile(target, 'utf8'), 'x');
      await assertStillUsable();
    });

    test('write a file inside the workspace', async () => {
      await executor.execute("open('notes.txt', 'w').write('kept')");
      assert.equal(await readFile(join(workspace, 'notes.txt'), 'utf8'), 'kept');
    });

    test("read the workspace's .env", async () => {
      const output = await attempt(executor, "print(open('.env').read())");
      if (sandboxed) {
        assert.match(output, /PermissionError: \[Errno 13\] Permission denied/);
        assert.doesNotMatch(output, /do-not-leak/);
      } else assert.equal(output.trim(), SECRET);
      await assertStillUsable();
    });

    test('a cell past its timeout is interrupted inside the sandbox; state is kept', async () => {
      await executor.execute('kept = 41');
      await assert.rejects(
        executor.execute("import subprocess\nsubprocess.run(['sleep', '60'])", { timeout: 1500 }),
        (error: unknown) => (error as KernelError).code === 'EXECUTION_TIMEOUT',
      );
      await assert.rejects(
        executor.execute('import time\ntime.sleep(60)', { timeout: 1500 }),
        (error: unknown) => (error as KernelError).code === 'EXECUTION_TIMEOUT',
      );
      assert.equal((await executor.execute('print(kept + 1)')).text.trim(), '42');
    });

    test('reset gives a fresh kernel, still confined', async () => {
      await executor.reset();
      const output = await attempt(executor, 'print(kept)');
      assert.match(output, /NameError/);
      await executor.execute('cells_survived = 0');
      const env = await attempt(executor, "print(open('.env').read())");
      if (sandboxed) assert.match(env, /PermissionError/);
      else assert.equal(env.trim(), SECRET);
    });

    test('a kernel that dies names its signal (not the sandbox exit code 139); then a fresh one', async () => {
      await assert.rejects(
        executor.execute('import ctypes\nctypes.string_at(0)'),
        (error: unknown) => {
          assert.equal((error as KernelError).code, 'KERNEL_DIED');
          assert.match((error as Error).message, /^The kernel died \(killed by SIGSEGV\);/);
          return true;
        },
      );
      assert.equal((await executor.execute('21 * 2')).text, '42');
    });

    test('an MCP tool call through the generated module', async () => {
      const result = await executor.execute(
        "from mcptools.everything import echo\nprint(echo.run({'message': 'from inside'}))",
      );
      assert.equal(result.text.trim(), 'Echo: from inside');
    });
  });
}
