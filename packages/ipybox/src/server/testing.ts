/**
 * Test helpers for the ipybox server: the real `ipybox` bin under the real SDK client, over stdio
 * or HTTP, with temporary workspaces. Used by the `*.test.ts` files beside it and by bench/.
 *
 * @module
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, type ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export const IPYBOX_BIN = fileURLToPath(new URL('../../bin/ipybox.js', import.meta.url));
export const EVERYTHING_BIN = fileURLToPath(
  new URL('../../../../node_modules/.bin/mcp-server-everything', import.meta.url),
);

export async function tempWorkspace(prefix = 'ipybox-ws-'): Promise<{
  dir: string;
  remove(): Promise<void>;
}> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
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
  const child = spawn(
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

/** The text items of a tool result, joined with newlines. */
export function textOf(result: unknown): string {
  return ((result as CallToolResult).content ?? [])
    .filter((item) => item.type === 'text')
    .map((item) => (item as { text: string }).text)
    .join('\n');
}

/** Calls `execute_ipython_cell`. */
export async function runCell(
  client: Client,
  code: string,
  extra: { timeout?: number; max_output_chars?: number } = {},
): Promise<CallToolResult> {
  return (await client.callTool(
    { name: 'execute_ipython_cell', arguments: { code, ...extra } },
    undefined,
    // The first cell includes the kernel's start, slow on a loaded machine.
    { timeout: 300_000 },
  )) as CallToolResult;
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
