/**
 * One connection attempt: expanded params in, a connected SDK `Client` out — or an
 * {@link UpstreamError} that says what went wrong in words a user can act on. Stdio goes through
 * the process-group guard (`stdioLaunch.ts`); HTTP tries Streamable HTTP and falls back to the
 * legacy SSE transport when the server answers with a 4xx, as the MCP spec's backwards-
 * compatibility section prescribes.
 *
 * Both protocol eras: without a cached verdict the client negotiates (`versionNegotiation:
 * 'auto'`, a `server/discover` probe falling back to `initialize`); with one it connects the way
 * the upstream answered last time (`connect({ prior })`, no probe) and, if that fails — the
 * upstream was replaced by one of the other era — probes afresh. The outcome is returned as the
 * verdict for the next connect (`verdicts.ts`).
 *
 * @module
 */

import type { Client, PriorDiscovery, SdkHttpError, Transport } from '@modelcontextprotocol/client';
import type { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { errorMessage } from '../errors.ts';
import type { Logger } from '../logging/index.ts';
// Adds the current trace context as `traceparent` headers when tracing (plain fetch otherwise).
import { fetchWithTraceContext } from '../telemetry/tracing.ts';
import type { DirectRequests } from './directRequests.ts';
import { UpstreamError } from './errors.ts';
import {
  type HttpUpstreamParams,
  isStdioParams,
  type StdioUpstreamParams,
  type UpstreamParams,
} from './params.ts';
import { clientSdk, isSdkError, isSdkHttpError, loadClientSdk } from './sdk.ts';
import { stdioLaunchParameters } from './stdioLaunch.ts';
import { useStdioMessageReader } from './stdioReader.ts';
import type { UpstreamClient } from './upstreamClient.ts';
import { describeVerdict, type TransportKind, type Verdict } from './verdicts.ts';

export type { TransportKind };

export interface ConnectedUpstream {
  client: UpstreamClient;
  transport: Transport;
  kind: TransportKind;
  /** The pid of the spawned process (the process-group guard, when available); stdio only. */
  pid: number | undefined;
  /** What this connect learnt about the upstream, for the next one. */
  verdict: Verdict;
  /** Where requests go instead of the SDK's `Protocol`, when they can (`directRequests.ts`). */
  direct?: DirectRequests;
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
  makeClient: () => UpstreamClient;
  /** Tenths of a second between SIGTERM and SIGKILL for a stdio upstream's process group. */
  graceSteps?: number;
  /** What the previous connect learnt: tried first, without a probe. */
  cached?: Verdict;
}

/**
 * Connects (spawn or HTTP handshake, era negotiation, `initialize` for a 2025 upstream) within
 * `timeoutMs` overall.
 */
export async function connectUpstream(attempt: ConnectAttempt): Promise<ConnectedUpstream> {
  const deadline = Date.now() + attempt.timeoutMs;
  await loadClientSdk();
  const { cached } = attempt;
  if (cached) {
    try {
      return await connectKnown(attempt, cached, deadline);
    } catch (error) {
      if (!worthProbing(error, deadline)) throw error;
      attempt.logger.info(
        `upstream '${attempt.name}' no longer connects as ${describeVerdict(cached)} (${errorMessage(error)}); negotiating its protocol again`,
      );
    }
  }
  return isStdioParams(attempt.expanded)
    ? connectStdio(attempt, attempt.expanded, deadline, undefined)
    : connectHttp(attempt, attempt.expanded, deadline);
}

/** A verdict that failed for a reason a fresh probe could fix (not a missing command, no time left). */
function worthProbing(error: unknown, deadline: number): boolean {
  if (Date.now() >= deadline) return false;
  return !(
    error instanceof UpstreamError &&
    (error.code === 'START_FAILED' || error.code === 'INITIALIZE_TIMEOUT')
  );
}

/** Connects the way the cached verdict says, checking a modern one with `server/discover`. */
async function connectKnown(
  attempt: ConnectAttempt,
  verdict: Verdict,
  deadline: number,
): Promise<ConnectedUpstream> {
  const expanded = attempt.expanded;
  if (isStdioParams(expanded)) return connectStdio(attempt, expanded, deadline, verdict);
  const url = new URL(expanded.url);
  const requestInit: RequestInit = { headers: expanded.headers };
  const { SSEClientTransport, StreamableHTTPClientTransport } = clientSdk().sdk;
  const transport =
    verdict.transport === 'sse'
      ? new SSEClientTransport(url, { requestInit, fetch: fetchWithTraceContext })
      : new StreamableHTTPClientTransport(url, { requestInit, fetch: fetchWithTraceContext });
  const client = attempt.makeClient();
  try {
    await initialize(client, transport, deadline, verdict.prior);
  } catch (error) {
    await closeQuietly(client);
    throw explain(error, attempt, []);
  }
  return { client, transport, kind: verdict.transport, pid: undefined, verdict };
}

async function connectStdio(
  attempt: ConnectAttempt,
  params: StdioUpstreamParams,
  deadline: number,
  known: Verdict | undefined,
): Promise<ConnectedUpstream> {
  const { name, logger } = attempt;
  const transport = new (clientSdk().stdio.StdioClientTransport)(
    stdioLaunchParameters(name, params, { graceSteps: attempt.graceSteps }),
  );
  // Its messages are checked once, by the client, not twice (see stdioReader.ts).
  useStdioMessageReader(transport);
  // Recent stderr lines explain an upstream that exits during start-up.
  const tail = stderrToLogger(transport, name, logger);
  const client = attempt.makeClient();
  if (!known) negotiate(client, deadline);
  try {
    await initialize(client, transport, deadline, known?.prior);
  } catch (error) {
    await closeQuietly(client);
    throw explain(error, attempt, tail);
  }
  const verdict = known ?? learnt(client, 'stdio');
  return { client, transport, kind: 'stdio', pid: transport.pid ?? undefined, verdict };
}

async function connectHttp(
  attempt: ConnectAttempt,
  params: HttpUpstreamParams,
  deadline: number,
): Promise<ConnectedUpstream> {
  const url = new URL(params.url);
  const requestInit: RequestInit = { headers: params.headers };
  const { SSEClientTransport, StreamableHTTPClientTransport } = clientSdk().sdk;
  const streamable = new StreamableHTTPClientTransport(url, {
    requestInit,
    fetch: fetchWithTraceContext,
  });
  let client = attempt.makeClient();
  negotiate(client, deadline);
  try {
    await initialize(client, streamable, deadline, undefined);
    const verdict = learnt(client, 'streamableHttp');
    return { client, transport: streamable, kind: 'streamableHttp', pid: undefined, verdict };
  } catch (error) {
    await closeQuietly(client);
    if (!refusedStreamableHttp(error)) throw explain(error, attempt, []);
    attempt.logger.debug(`upstream '${attempt.name}': no Streamable HTTP, trying SSE`, {
      status: (error as SdkHttpError).status,
    });
  }
  // The HTTP+SSE transport predates 2026-07-28: plain 2025 handshake, no probe.
  const sse = new SSEClientTransport(url, { requestInit, fetch: fetchWithTraceContext });
  client = attempt.makeClient();
  try {
    await initialize(client, sse, deadline, undefined);
    const verdict: Verdict = { transport: 'sse', prior: { kind: 'legacy' }, learnt: Date.now() };
    return { client, transport: sse, kind: 'sse', pid: undefined, verdict };
  } catch (error) {
    await closeQuietly(client);
    throw explain(error, attempt, []);
  }
}

/**
 * Probe with `server/discover`, fall back to `initialize`. The probe gets half the time left: a
 * 2025 stdio server that ignores unknown requests is only recognised by its silence, and the
 * handshake after it needs the other half.
 */
function negotiate(client: Client, deadline: number): void {
  const timeoutMs = Math.max(1_000, Math.floor((deadline - Date.now()) / 2));
  client.setVersionNegotiation({ mode: 'auto', probe: { timeoutMs } });
}

/** The era a negotiated connect landed on: the discover result for 2026, else 2025. */
function learnt(client: Client, transport: TransportKind): Verdict {
  const discover = client.getDiscoverResult();
  const prior: PriorDiscovery = discover ? { kind: 'modern', discover } : { kind: 'legacy' };
  return { transport, prior, learnt: Date.now() };
}

/** A 4xx to the initialize POST means "not a Streamable HTTP endpoint" (404, 405, 400 …). */
function refusedStreamableHttp(error: unknown): boolean {
  return (
    isSdkHttpError(error) &&
    typeof error.status === 'number' &&
    error.status >= 400 &&
    error.status < 500 &&
    error.status !== 401 &&
    error.status !== 403
  );
}

class DeadlineExceeded extends Error {}

/**
 * `client.connect` with one deadline for everything: the SDK's own timeout covers only one
 * request, not an SSE stream that never sends its endpoint event. A `prior` modern verdict
 * sends nothing at connect, so it is checked here with one `server/discover`: an upstream that
 * moved to the 2025 era fails now, where a fresh probe can still follow, not at the first call.
 */
async function initialize(
  client: Client,
  transport: Transport,
  deadline: number,
  prior: PriorDiscovery | undefined,
): Promise<void> {
  const remaining = () => Math.max(1, deadline - Date.now());
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineExceeded()), remaining());
  });
  const connect = async () => {
    await client.connect(transport, { timeout: remaining(), prior });
    if (prior?.kind === 'modern') await client.discover({ timeout: remaining() });
  };
  try {
    await Promise.race([connect(), expired]);
  } finally {
    clearTimeout(timer);
  }
}

function explain(error: unknown, attempt: ConnectAttempt, stderrTail: string[]): UpstreamError {
  const { name, timeoutMs } = attempt;
  if (error instanceof UpstreamError) return error;
  if (error instanceof DeadlineExceeded || isSdkError(error, 'RequestTimeout')) {
    return new UpstreamError(
      'INITIALIZE_TIMEOUT',
      `upstream '${name}' did not finish initialize within ${timeoutMs} ms`,
      { cause: error },
    );
  }
  const lastWords = stderrTail.length > 0 ? ` (its stderr: ${stderrTail.join(' | ')})` : '';
  if (isSdkError(error, 'ConnectionClosed')) {
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

/**
 * `fetch failed` alone says nothing; its cause says ECONNREFUSED, ENOTFOUND, … The era probe
 * wraps transport failures ("Version negotiation probe failed: fetch failed"): the wrapped
 * error is what the user needs.
 */
function describeCause(error: unknown): string {
  const shown =
    isSdkError(error, 'EraNegotiationFailed') && error.cause instanceof Error ? error.cause : error;
  const cause =
    shown instanceof Error ? (shown.cause as { code?: unknown } | undefined) : undefined;
  if (cause && typeof cause.code === 'string') return `${errorMessage(shown)} (${cause.code})`;
  return errorMessage(shown);
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
