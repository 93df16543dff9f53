/**
 * Test helpers for the ipybox server: the real `ipybox` bin under the real SDK client, over stdio
 * or HTTP, with temporary workspaces. Used by the `*.test.ts` files beside it and by bench/.
 *
 * @module
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import { removeAtExit, spawnTiedToTest, textOf } from '@mcpbox/test-utils';
import type { CallToolResult, ClientOptions } from '@modelcontextprotocol/client';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

export const IPYBOX_BIN = fileURLToPath(new URL('../../bin/ipybox.js', import.meta.url));
export const FACTORY_BIN = fileURLToPath(
  new URL('../../../proxy/bin/mcp-factory.js', import.meta.url),
);
export const EVERYTHING_BIN = fileURLToPath(
  new URL('../../../../node_modules/.bin/mcp-server-everything', import.meta.url),
);

export async function tempWorkspace(prefix = 'ipybox-ws-'): Promise<{
  dir: string;
  remove(): Promise<void>;
}> {
  const dir = removeAtExit(await mkdtemp(join(tmpdir(), prefix)));
  // A test's cleanup may remove the workspace before the server it holds (mcp-proxy's log
  // folder, a kernel's files) has exited: retry on ENOTEMPTY instead of failing the test.
  const remove = () => rm(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
  return { dir, remove };
}

export interface StdioIpybox {
  client: Client;
  transport: StdioClientTransport;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

/** Spawns `ipybox --workspace <dir> ...args` and connects an SDK client over stdio. */
export async function startStdioIpybox(
  workspace: string,
  {
    args = [],
    env = {},
    clientOptions,
  }: { args?: string[]; env?: Record<string, string>; clientOptions?: ClientOptions } = {},
): Promise<StdioIpybox> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [IPYBOX_BIN, '--workspace', workspace, '--log-level', 'warning', ...args],
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'ipybox-test', version: '1.0.0' }, clientOptions);
  await client.connect(transport);
  return {
    client,
    transport,
    stderr: () => stderr,
    close: () => client.close(),
  };
}

export type StdioIpyboxOptions = NonNullable<Parameters<typeof startStdioIpybox>[1]>;

/**
 * For a `describe()`: a temp workspace (`prepare` may write into it first) and an ipybox over
 * stdio in it, started before the suite's tests, closed and removed after them. Its `client`
 * and `dir` are read inside the tests.
 */
export function stdioIpyboxPerSuite(
  options: StdioIpyboxOptions & {
    prefix?: string;
    prepare?: (dir: string) => Promise<void>;
  } = {},
): { readonly client: Client; readonly dir: string; stderr(): string } {
  let ws: Awaited<ReturnType<typeof tempWorkspace>> | undefined;
  let box: StdioIpybox | undefined;
  before(async () => {
    ws = await tempWorkspace(options.prefix);
    await options.prepare?.(ws.dir);
    box = await startStdioIpybox(ws.dir, options);
  });
  after(async () => {
    await box?.close();
    await ws?.remove();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the suite has not started its ipybox');
    return value;
  };
  return {
    get client() {
      return started(box).client;
    },
    get dir() {
      return started(ws).dir;
    },
    stderr: () => started(box).stderr(),
  };
}

export interface HttpIpybox {
  url: string;
  process: ChildProcess;
  /** A new SDK client (a new MCP session). */
  connect(clientOptions?: ClientOptions): Promise<Client>;
  close(): Promise<void>;
}

/** Spawns `ipybox --http 0` and waits for the endpoint it prints. */
export async function startHttpIpybox(
  workspace: string,
  { args = [], env = {} }: { args?: string[]; env?: Record<string, string> } = {},
): Promise<HttpIpybox> {
  const child = spawnTiedToTest(
    process.execPath,
    [IPYBOX_BIN, '--workspace', workspace, '--http', '0', '--log-level', 'info', ...args],
    { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const clients: Client[] = [];
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let stderr = '';
    const onData = (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const match = /ipybox MCP endpoint: (\S+)/.exec(stderr);
      if (match?.[1]) {
        child.stderr?.off('data', onData);
        child.stderr?.resume();
        resolve(match[1]);
      }
    };
    child.stderr?.on('data', onData);
    child.once('exit', (code) =>
      reject(new Error(`ipybox exited (${code}) before serving:\n${stderr}`)),
    );
  });
  return {
    url,
    process: child,
    async connect(clientOptions) {
      const client = new Client({ name: 'ipybox-test', version: '1.0.0' }, clientOptions);
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      clients.push(client);
      return client;
    },
    async close() {
      await Promise.allSettled(clients.map((c) => c.close()));
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** test-utils' `textOf`, exported here too: ipybox's tests take their helpers from this module. */
export { textOf };

/** Calls `execute_ipython_cell`. */
export async function runCell(
  client: Client,
  code: string,
  extra: { timeout?: number; max_output_chars?: number } = {},
): Promise<CallToolResult> {
  return (await client.callTool(
    { name: 'execute_ipython_cell', arguments: { code, ...extra } },
    // The first cell includes the kernel's start, slow on a loaded machine.
    { timeout: 300_000 },
  )) as CallToolResult;
}

/**
 * Calls `execute_ipython_cell` and cancels the request (the client's `AbortSignal`) as soon as
 * the cell's first output arrives, so the cell is known to be running. Returns the call, which
 * rejects.
 */
export function runCellCancelledAtOutput(client: Client, code: string): Promise<unknown> {
  const abort = new AbortController();
  return client.callTool(
    { name: 'execute_ipython_cell', arguments: { code } },
    { signal: abort.signal, onprogress: () => abort.abort() },
  );
}

/**
 * Kernel code that calls the everything server's `echo` with `message` and prints its answer, or
 * `<ApprovalError subclass> | <reason>` when the call was not approved.
 */
export function callEcho(message: string): string {
  return [
    'from mcptools._runtime import ApprovalError',
    'from mcptools.everything import echo',
    'try:',
    `    print(echo.run({'message': ${JSON.stringify(message)}}))`,
    'except ApprovalError as e:',
    "    print(type(e).__name__, '|', e)",
  ].join('\n');
}

/** Registers `@modelcontextprotocol/server-everything` (stdio) as `mcptools.everything`. */
export async function registerEverything(client: Client): Promise<void> {
  const result = (await client.callTool({
    name: 'register_mcp_server',
    arguments: {
      server_name: 'everything',
      server_params: { command: EVERYTHING_BIN, args: ['stdio'] },
    },
  })) as CallToolResult;
  if (result.isError) throw new Error(`register_mcp_server everything: ${textOf(result)}`);
}

/** True while a process with that id exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits until `pid` has exited (polling); false if it is still there after `ms`. */
export async function waitForExit(pid: number, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return !alive(pid);
}
