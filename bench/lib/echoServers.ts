/**
 * Starting the echo benchmark's servers (bench/echo.ts): one process per server and group, over
 * stdio (one client) or Streamable HTTP (one client per concurrent caller), each checked to have
 * negotiated its group's era and to list the `echo` tool before it is measured.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { Era } from '@mcpbox/framework';
import { type Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { benchClient, checkEra } from './measure.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Concurrent callers in the throughput runs: over HTTP, one client each. */
export const CONCURRENCY = 8;

export type Transport = 'stdio' | 'http';

export interface Group {
  name: string;
  transport: Transport;
  era: Era;
}

/** How to start one server: the command line after `node`, or none where it cannot serve. */
export interface ServerKind {
  name: string;
  args(group: Group): string[] | undefined;
}

export interface Running {
  kind: ServerKind;
  group: Group;
  /** The server process (the bins and peers run in the process they are started as). */
  pid: number;
  clients: Client[];
  /** The protocol version the clients negotiated. */
  version: string;
  close(): Promise<void>;
  latencies: number[];
  throughputs: number[];
  cpuMs: number;
  cpuCalls: number;
  /** Why this server dropped out, if it did. */
  failure?: string;
}

/** Checks that a connected client got its group's era and that the server lists `echo`. */
async function checkConnected(client: Client, group: Group): Promise<string> {
  const version = checkEra(client, group.era);
  const { tools } = await client.listTools();
  if (!tools.some((t) => t.name === 'echo')) throw new Error('lists no echo tool');
  return version;
}

/** The measurements of a server not measured yet. */
export const blank = () => ({ latencies: [], throughputs: [], cpuMs: 0, cpuCalls: 0 });

/**
 * Milliseconds from spawning `command args` to the answer of its era's first request
 * (`initialize` for 2025, the pinned 2026 client's first request): a stdio client's cold start.
 */
export async function coldStartMs(
  command: string,
  args: string[],
  env: Record<string, string>,
  era: Era,
): Promise<number> {
  const transport = new StdioClientTransport({ command, args, env, cwd: ROOT, stderr: 'ignore' });
  const client = benchClient(era);
  const start = performance.now();
  try {
    await client.connect(transport);
    const elapsed = performance.now() - start;
    checkEra(client, era);
    return elapsed;
  } finally {
    await client.close();
  }
}

export async function startStdio(kind: ServerKind, group: Group, args: string[]): Promise<Running> {
  const client = benchClient(group.era);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    cwd: ROOT,
    env: process.env as Record<string, string>,
    stderr: 'ignore',
  });
  try {
    // A 2026 pin probes `server/discover` on a short-lived sibling process first; the pid below
    // is the process that serves the connection.
    await client.connect(transport);
    const version = await checkConnected(client, group);
    return {
      kind,
      group,
      pid: transport.pid!,
      clients: [client],
      version,
      close: () => client.close(),
      ...blank(),
    };
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
}

/** Waits for the `MCP endpoint:  <url>` line every server here prints on stderr. */
async function endpointOf(child: ChildProcess, name: string): Promise<URL> {
  let seen = '';
  const found = new Promise<URL>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /MCP endpoint:\s+(\S+)/.exec(seen);
      if (match) resolve(new URL(match[1]));
    });
    child.once('exit', (code, signal) =>
      reject(new Error(`${name} exited (${code ?? signal}) before listening:\n${seen}`)),
    );
  });
  // A busy machine can be slow to start a server, but not this slow.
  const timeout = setTimeout(() => child.kill('SIGKILL'), 90_000);
  try {
    return await found;
  } finally {
    clearTimeout(timeout);
  }
}

/** Starts an HTTP server and connects `clientCount` clients to it (one per concurrent caller). */
export async function startHttp(
  kind: ServerKind,
  group: Group,
  args: string[],
  clientCount = CONCURRENCY,
): Promise<Running> {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  const clients: Client[] = [];
  const close = async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  };
  try {
    const url = await endpointOf(child, kind.name);
    let version = '?';
    for (let i = 0; i < clientCount; i++) {
      const client = benchClient(group.era);
      clients.push(client);
      await client.connect(new StreamableHTTPClientTransport(url));
      version = await checkConnected(client, group);
    }
    return { kind, group, pid: child.pid!, clients, version, close, ...blank() };
  } catch (error) {
    await close();
    throw error;
  }
}
