/**
 * Runs the real `mcp-proxy` bin as a child process for end-to-end tests, in its own process
 * group so `stop()` ends it and anything it started; waits for the start-up line that names the
 * bound MCP URL and management API.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  Client,
  type ClientOptions,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { endProcessGroup, spawnTiedToTest } from './serverProcess.ts';

export const PROXY_BIN = fileURLToPath(new URL('../../proxy/bin/mcp-proxy.js', import.meta.url));
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface ProxyProcess {
  child: ChildProcess;
  /** `http://127.0.0.1:<port>/mcp`, for HTTP proxies. */
  mcpUrl: string | undefined;
  mgmtPort: number;
  healthUrl: string | undefined;
  /** Resolves with the exit code when the proxy ends, for or without a `stop()`. */
  exited: Promise<number | null>;
  stderr(): string;
  stop(): Promise<void>;
}

/** Runs `mcp-proxy <args>` and returns once it serves (or rejects with its stderr). */
export async function startProxy(
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {},
): Promise<ProxyProcess> {
  const child = spawnTiedToTest(process.execPath, [PROXY_BIN, ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  const stop = () => endProcessGroup(child, exited);
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  while (true) {
    const line = /serving .* management API http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr);
    if (line) {
      const mcp = / at (http:\/\/\S+\/mcp);/.exec(stderr);
      const health = /health (http:\/\/\S+)\/health/.exec(stderr);
      return {
        child,
        mcpUrl: mcp?.[1],
        mgmtPort: Number(line[1]),
        healthUrl: health?.[1],
        exited,
        stderr: () => stderr,
        stop,
      };
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`mcp-proxy did not start (exit ${child.exitCode}):\n${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

type After = { after(fn: () => unknown): void };

/**
 * Runs `mcp-proxy` over HTTP, its MCP endpoint, management API and health server on ports of
 * their own, stopped after the test.
 */
export async function startHttpProxy(
  t: After,
  args: string[],
  options: Parameters<typeof startProxy>[1] = {},
): Promise<ProxyProcess & { mcpUrl: string }> {
  const proxy = await startProxy(
    ['--http', '0', '--mgmt-port', '0', '--health-port', '0', ...args],
    options,
  );
  t.after(() => proxy.stop());
  if (proxy.mcpUrl === undefined) throw new Error(`no MCP URL in:\n${proxy.stderr()}`);
  return { ...proxy, mcpUrl: proxy.mcpUrl };
}

/** An SDK client of an HTTP MCP endpoint (with a bearer token, if given), closed after the test. */
export async function connectHttp(
  t: After,
  url: string,
  {
    name = 'http-test',
    token,
    options,
  }: { name?: string; token?: string; options?: ClientOptions } = {},
): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' }, options);
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: token ? { headers: { authorization: `Bearer ${token}` } } : undefined,
  });
  await client.connect(transport);
  t.after(() => client.close());
  return client;
}

/** Runs the bin to completion (client commands), returning exit code and output. */
export function runProxyCli(
  args: string[],
  options: { env?: Record<string, string> } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [PROXY_BIN, ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, MCP_MGMT_TOKEN: '', ...options.env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => {
      stdout += c;
    });
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export const FACTORY_BIN = fileURLToPath(
  new URL('../../proxy/bin/mcp-factory.js', import.meta.url),
);

export interface StdioLaunch {
  /** The bin to run. Default `mcp-proxy`. */
  bin?: string;
  args: string[];
  /** `HOME` for the child, so `~/mcp_plugins` and the like are the test's. */
  home: string;
  /** Default the repository root. */
  cwd?: string;
  /** A client with its handlers already set; default a plain one. */
  client?: Client;
}

/**
 * Launches a bin over stdio as an MCP client would and connects an SDK client; `t.after`
 * closes it, which ends the child.
 */
export async function connectStdio(
  t: { after(fn: () => Promise<void>): void },
  { bin = PROXY_BIN, args, home, cwd = REPO_ROOT, client }: StdioLaunch,
): Promise<{ client: Client; stderr(): string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, ...args],
    cwd,
    env: { ...(process.env as Record<string, string>), HOME: home },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const connected = client ?? new Client({ name: 'stdio-test', version: '1.0.0' });
  t.after(() => connected.close());
  await connected.connect(transport);
  return { client: connected, stderr: () => stderr };
}
