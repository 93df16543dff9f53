/**
 * What every MCP request leaves behind for observability, in both eras and on every transport:
 * a server span continuing the caller's trace (`_meta.traceparent`, else the HTTP
 * `traceparent` header), and an event on {@link REQUEST_CHANNEL} that the metrics count by
 * method and era. With neither configured, a request pays two cheap checks.
 *
 * @module
 */
import { channel } from 'node:diagnostics_channel';
import {
  BAGGAGE_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  type ServerContext,
  TRACEPARENT_META_KEY,
  TRACESTATE_META_KEY,
} from '@modelcontextprotocol/server';
import { type Era, type EraVersion, versionOfEra } from '../protocol/era.ts';
import { type Carrier, inSpan, type SpanSpec, tracingEnabled } from './tracing.ts';

/** `node:diagnostics_channel` name of {@link RequestEvent}s. */
export const REQUEST_CHANNEL = 'mcpbox:request';

/** The protocol era a request belongs to, named by its protocol version. */
export type EraLabel = EraVersion;

/** One answered request. `tool_error` is a tool result with `isError`. */
export interface RequestEvent {
  method: string;
  era: EraLabel;
  outcome: 'ok' | 'error' | 'tool_error';
  seconds: number;
}

const requests = channel(REQUEST_CHANNEL);

function isToolError(result: unknown): boolean {
  return (result as { isError?: unknown } | null)?.isError === true;
}

const failureOf = (result: unknown) => (isToolError(result) ? 'tool_error' : undefined);

/** Whether requests are traced or counted: when not, a request may be answered without its handler. */
export function requestsObserved(): boolean {
  return requests.hasSubscribers || tracingEnabled();
}

/**
 * Runs one request handler, traced and counted when either is on. `era` is the session's (the
 * transport entry decided it); `params` are the request's, for the span's name (`tools/call echo`).
 */
export function observeRequest<R>(
  ctx: ServerContext,
  era: Era,
  params: unknown,
  run: () => Promise<R>,
): Promise<R> {
  if (!requestsObserved()) return run();
  const counting = requests.hasSubscribers;
  const traced = tracingEnabled() ? inSpan(() => requestSpan(ctx, params), run, failureOf) : run();
  if (!counting) return traced;
  // The global `performance`: node:perf_hooks loads on the first request, not at start-up.
  const started = performance.now();
  const publish = (outcome: RequestEvent['outcome']) => {
    const event: RequestEvent = {
      method: ctx.mcpReq.method,
      era: versionOfEra(era),
      outcome,
      seconds: (performance.now() - started) / 1000,
    };
    requests.publish(event);
  };
  return traced.then(
    (result) => {
      publish(isToolError(result) ? 'tool_error' : 'ok');
      return result;
    },
    (error: unknown) => {
      publish('error');
      throw error;
    },
  );
}

/** The request's span, named and attributed after the OpenTelemetry MCP conventions. */
function requestSpan(ctx: ServerContext, params: unknown): SpanSpec {
  const method = ctx.mcpReq.method;
  const p = (params ?? {}) as { name?: unknown; uri?: unknown };
  const name = typeof p.name === 'string' ? p.name : undefined;
  const uri = typeof p.uri === 'string' ? p.uri : undefined;
  const target = method === 'tools/call' || method === 'prompts/get' ? name : uri;
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const version = envelope?.[PROTOCOL_VERSION_META_KEY];
  return {
    name: target ? `${method} ${target}` : method,
    kind: 'server',
    parent: callerTraceOf(ctx),
    attributes: {
      'mcp.method.name': method,
      'mcp.session.id': ctx.sessionId,
      'mcp.protocol.version': typeof version === 'string' ? version : undefined,
      'jsonrpc.request.id': String(ctx.mcpReq.id),
      'gen_ai.operation.name': method === 'tools/call' ? 'execute_tool' : undefined,
      'gen_ai.tool.name': method === 'tools/call' ? name : undefined,
      'gen_ai.prompt.name': method === 'prompts/get' ? name : undefined,
      'mcp.resource.uri': uri,
    },
  };
}

/** The caller's trace: `_meta` first (it names this very request), then the HTTP headers. */
function callerTraceOf(ctx: ServerContext): Carrier | undefined {
  const meta = ctx.mcpReq._meta as Record<string, unknown> | undefined;
  if (typeof meta?.[TRACEPARENT_META_KEY] === 'string') return meta;
  const headers = ctx.http?.req?.headers;
  const traceparent = headers?.get(TRACEPARENT_META_KEY);
  if (!headers || !traceparent) return undefined;
  return {
    [TRACEPARENT_META_KEY]: traceparent,
    [TRACESTATE_META_KEY]: headers.get(TRACESTATE_META_KEY) ?? undefined,
    [BAGGAGE_META_KEY]: headers.get(BAGGAGE_META_KEY) ?? undefined,
  };
}
