/**
 * One connection attempt: expanded params in, an initialized SDK `Client` out — or an
 * {@link UpstreamError} that says what went wrong in words a user can act on. Stdio goes through
 * the process-group guard (`stdioLaunch.ts`); HTTP tries Streamable HTTP and falls back to the
 * legacy SSE transport when the server answers with a 4xx, as the MCP spec's backwards-
 * compatibility section prescribes.
 *
 * @module
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../errors.ts';
import type { Logger } from '../logging/index.ts';
import { UpstreamError } from './errors.ts';
import {
  type HttpUpstreamParams,
  isStdioParams,
  type StdioUpstreamParams,
  type UpstreamParams,
} from './params.ts';
import { stdioLaunchParameters } from './stdioLaunch.ts';

export type TransportKind = 'stdio' | 'streamableHttp' | 'sse';

export interface ConnectedUpstream {
  client: Client;
  transport: Transport;
  kind: TransportKind;
  /** The pid of the spawned process (the process-group guard, when available); stdio only. */
  pid: number | undefined;
}

export interface ConnectAttempt {
  name: string;
  /** The written params, for messages (placeholders intact). */
  written: UpstreamParams;
  /** The same params with placeholders expanded, for the transport only. */
  expanded: UpstreamParams;
  timeoutMs: number;
  logger: Logger;
  /** A fresh, unconnected client; called once per transport tried. */
  makeClient: () => Client;
  /** Tenths of a second between SIGTERM and SIGKILL for a stdio upstream's process group. */
  graceSteps?: number;
}

/** Connects and initializes, within `timeoutMs` overall (spawn or HTTP handshake included). */
export async function connectUpstream(attempt: ConnectAttempt): Promise<ConnectedUpstream> {
  const deadline = Date.now() + attempt.timeoutMs;
  if (isStdioParams(attempt.expanded)) {
    return connectStdio(attempt, attempt.expanded, deadline);
  }
  return connectHttp(attempt, attempt.expanded, deadline);
}

async function connectStdio(
  attempt: ConnectAttempt,
  params: StdioUpstreamParams,
  deadline: number,
): Promise<ConnectedUpstream> {
  const { name, logger } = attempt;
  const transport = new StdioClientTransport(
    stdioLaunchParameters(name, params, { graceSteps: attempt.graceSteps }),
  );
  // Recent stderr lines explain an upstream that exits during start-up.
  const tail = stderrToLogger(transport, name, logger);
  const client = attempt.makeClient();
  try {
    await initialize(client, transport, deadline);
  } catch (error) {
    await closeQuietly(client);
    throw explain(error, attempt, tail);
  }
  return { client, transport, kind: 'stdio', pid: transport.pid ?? undefined };
}

async function connectHttp(
  attempt: ConnectAttempt,
  params: HttpUpstreamParams,
  deadline: number,
): Promise<ConnectedUpstream> {
  const url = new URL(params.url);
  const requestInit: RequestInit = { headers: params.headers };
  const streamable = new StreamableHTTPClientTransport(url, { requestInit });
  let client = attempt.makeClient();
  try {
    await initialize(client, streamable, deadline);
    return { client, transport: streamable, kind: 'streamableHttp', pid: undefined };
  } catch (error) {
    await closeQuietly(client);
    if (!refusedStreamableHttp(error)) throw explain(error, attempt, []);
    attempt.logger.debug(`upstream '${attempt.name}': no Streamable HTTP, trying SSE`, {
      status: (error as StreamableHTTPError).code,
    });
  }
  const sse = new SSEClientTransport(url, { requestInit });
  client = attempt.makeClient();
  try {
    await initialize(client, sse, deadline);
    return { client, transport: sse, kind: 'sse', pid: undefined };
  } catch (error) {
    await closeQuietly(client);
    throw explain(error, attempt, []);
  }
}

/** A 4xx to the initialize POST means "not a Streamable HTTP endpoint" (404, 405, 400 …). */
function refusedStreamableHttp(error: unknown): boolean {
  return (
    error instanceof StreamableHTTPError &&
    typeof error.code === 'number' &&
    error.code >= 400 &&
    error.code < 500 &&
    error.code !== 401 &&
    error.code !== 403
  );
}

class DeadlineExceeded extends Error {}

/**
 * `client.connect` with one deadline for everything: the SDK's own timeout covers only the
 * `initialize` request, not an SSE stream that never sends its endpoint event.
 */
async function initialize(client: Client, transport: Transport, deadline: number): Promise<void> {
  const remaining = Math.max(1, deadline - Date.now());
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineExceeded()), remaining);
  });
  try {
    await Promise.race([client.connect(transport, { timeout: remaining }), expired]);
  } finally {
    clearTimeout(timer);
  }
}

function explain(error: unknown, attempt: ConnectAttempt, stderrTail: string[]): UpstreamError {
  const { name, timeoutMs } = attempt;
  if (error instanceof UpstreamError) return error;
  if (
    error instanceof DeadlineExceeded ||
    (error instanceof McpError && error.code === ErrorCode.RequestTimeout)
  ) {
    return new UpstreamError(
      'INITIALIZE_TIMEOUT',
      `upstream '${name}' did not finish initialize within ${timeoutMs} ms`,
      { cause: error },
    );
  }
  const lastWords = stderrTail.length > 0 ? ` (its stderr: ${stderrTail.join(' | ')})` : '';
  if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
    return new UpstreamError(
      'CONNECT_FAILED',
      `upstream '${name}' exited before finishing initialize${lastWords}`,
      { cause: error },
    );
  }
  const where = 'url' in attempt.written ? ` at ${attempt.written.url}` : '';
  return new UpstreamError(
    'CONNECT_FAILED',
    `cannot connect to upstream '${name}'${where}: ${describeCause(error)}${lastWords}`,
    { cause: error },
  );
}

/** `fetch failed` alone says nothing; its cause says ECONNREFUSED, ENOTFOUND, … */
function describeCause(error: unknown): string {
  const cause =
    error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  if (cause && typeof cause.code === 'string') return `${errorMessage(error)} (${cause.code})`;
  return errorMessage(error);
}

const STDERR_TAIL_LINES = 5;
const STDERR_LINE_MAX = 300;

/** Sends the child's stderr to the logger line by line; returns a live tail of recent lines. */
function stderrToLogger(transport: StdioClientTransport, name: string, logger: Logger): string[] {
  const tail: string[] = [];
  let partial = '';
  const emit = (line: string) => {
    if (!line.trim()) return;
    const cut = line.length > STDERR_LINE_MAX ? `${line.slice(0, STDERR_LINE_MAX)}…` : line;
    tail.push(cut);
    if (tail.length > STDERR_TAIL_LINES) tail.shift();
    logger.info(`[upstream ${name}] ${cut}`);
  };
  const stream = transport.stderr;
  stream?.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) emit(line);
  });
  stream?.on('end', () => {
    if (partial) emit(partial);
    partial = '';
  });
  return tail;
}

async function closeQuietly(client: Client): Promise<void> {
  try {
    await client.close();
  } catch {
    // Already closed or never connected; nothing left to release.
  }
}
