/**
 * OpenTelemetry traces: off and free unless configured. The SDK (api, sdk-trace, the OTLP/HTTP
 * exporter, the async-hooks context manager) is imported only by {@link startTracing}; until
 * then every helper here costs one `undefined` check and runs the work as it is.
 *
 * Trace context crosses processes the W3C way: `traceparent`/`tracestate`/`baggage` in a request's
 * `_meta` (the 2026-07-28 convention, sent in both eras) and as HTTP headers.
 *
 * @module
 */
import type * as Api from '@opentelemetry/api';
import { McpboxError } from '../errors.ts';
import { createLogger, type Logger } from '../logging/index.ts';
import type { TelemetrySettings } from './settings.ts';

/** A W3C trace-context carrier: a request's `_meta`, HTTP headers. */
export type Carrier = Readonly<Record<string, unknown>>;

export type SpanKindName = 'server' | 'client' | 'internal';

export type Attributes = Record<string, string | number | boolean | undefined>;

export interface SpanSpec {
  name: string;
  kind: SpanKindName;
  attributes?: Attributes;
  /** Continue the trace this carrier names (an incoming request); else the current span's. */
  parent?: Carrier;
}

interface Tracing {
  api: typeof Api;
  tracer: Api.Tracer;
  provider: { forceFlush(): Promise<void>; shutdown(): Promise<void> };
}

let tracing: Tracing | undefined;
let starting: Promise<void> | undefined;

/** True once {@link startTracing} has loaded the SDK. The hot paths' one check. */
export function tracingEnabled(): boolean {
  return tracing !== undefined;
}

/**
 * Loads the SDK and starts exporting (once per process: OpenTelemetry's providers are global;
 * a second call with other settings keeps the first).
 */
export function startTracing(settings: TelemetrySettings): Promise<void> {
  starting ??= load(settings).catch((error) => {
    starting = undefined;
    throw error;
  });
  return starting;
}

/** Waits for the tracing SDK `startTracing` loads; a failure to load it stops the start. */
export async function tracingStarted(tracingReady: Promise<void>): Promise<void> {
  await tracingReady.catch((error) => {
    throw new McpboxError(
      'TELEMETRY_FAILED',
      `cannot start OpenTelemetry tracing: ${error instanceof Error ? error.message : String(error)}`,
    );
  });
}

async function load(settings: TelemetrySettings): Promise<void> {
  const [api, hooks, core, resources, sdk, otlp] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/exporter-trace-otlp-http'),
  ]);
  const provider = new sdk.TracerProvider({
    resource: resources.resourceFromAttributes({ 'service.name': settings.serviceName }),
    // A caller's decision (the sampled flag of its traceparent) wins; new traces use the ratio.
    sampler: new sdk.ParentBasedSampler({
      root: new sdk.TraceIdRatioBasedSampler(settings.sampleRatio),
    }),
    spanProcessors: [
      new sdk.BatchSpanProcessor({
        exporter: new otlp.OTLPTraceExporter({ url: settings.tracesUrl }),
        scheduledDelayMillis: settings.exportDelayMs,
      }),
    ],
  });
  api.context.setGlobalContextManager(new hooks.AsyncLocalStorageContextManager().enable());
  api.propagation.setGlobalPropagator(
    new core.CompositePropagator({
      propagators: [new core.W3CTraceContextPropagator(), new core.W3CBaggagePropagator()],
    }),
  );
  api.trace.setGlobalTracerProvider(provider);
  api.diag.setLogger(exportProblems(settings.tracesUrl), api.DiagLogLevel.WARN);
  tracing = { api, tracer: provider.getTracer('mcpbox'), provider };
}

/** At most one line a minute about spans that cannot be exported; calls go on regardless. */
const REPORT_EVERY_MS = 60_000;

/**
 * The SDK's own complaints (an unreachable or refusing collector, most often) as warnings on our
 * log, naming the URL without any credentials in it, and never more than one a minute.
 */
export function exportProblems(
  tracesUrl: string,
  logger: Logger = createLogger('telemetry'),
  now: () => number = Date.now,
): Api.DiagLogger {
  const url = new URL(tracesUrl);
  const shown = `${url.origin}${url.pathname}`;
  let last = Number.NEGATIVE_INFINITY;
  const report = (message: string, ...args: unknown[]) => {
    if (now() - last < REPORT_EVERY_MS) return;
    last = now();
    const detail = args
      .map((arg) => (arg instanceof Error ? arg.message : typeof arg === 'string' ? arg : ''))
      .filter(Boolean)
      .join(' ')
      .replace(/\/\/[^/@\s]*@/g, '//'); // no user:password@ of a URL in the message
    logger.warn(
      `OpenTelemetry: ${message}${detail ? ` ${detail}` : ''} (exporting to ${shown}; spans are dropped until it answers, tool calls go on; next report in a minute at the earliest)`,
    );
  };
  const ignore = () => undefined;
  return { error: report, warn: report, info: ignore, debug: ignore, verbose: ignore };
}

/** Sends the spans still waiting (before a process ends). */
export async function flushTracing(): Promise<void> {
  await tracing?.provider.forceFlush().catch(() => undefined);
}

/** Flushes and stops exporting; later spans are not recorded. */
export async function stopTracing(): Promise<void> {
  const active = tracing;
  tracing = undefined;
  starting = undefined;
  if (!active) return;
  await active.provider.shutdown().catch(() => undefined);
  active.api.trace.disable();
  active.api.context.disable();
  active.api.propagation.disable();
  active.api.diag.disable();
}

/** What makes a result a failure for its span (an `isError` tool result); undefined for fine. */
export type FailureOf<T> = (result: T) => string | undefined;

/**
 * Runs `run` inside a span (a child of `parent` or of the current span), ending it with the
 * outcome. Without tracing, just `run()`.
 */
export function inSpan<T>(
  spec: SpanSpec | (() => SpanSpec),
  run: () => Promise<T>,
  failureOf?: FailureOf<T>,
): Promise<T> {
  if (tracing === undefined) return run();
  return record(tracing, typeof spec === 'function' ? spec() : spec, run, failureOf);
}

async function record<T>(
  { api, tracer }: Tracing,
  spec: SpanSpec,
  run: () => Promise<T>,
  failureOf: FailureOf<T> | undefined,
): Promise<T> {
  const parentContext = spec.parent
    ? api.propagation.extract(api.ROOT_CONTEXT, spec.parent)
    : api.context.active();
  const kind =
    spec.kind === 'server'
      ? api.SpanKind.SERVER
      : spec.kind === 'client'
        ? api.SpanKind.CLIENT
        : api.SpanKind.INTERNAL;
  const span = tracer.startSpan(
    spec.name,
    { kind, attributes: definedOnly(spec.attributes) },
    parentContext,
  );
  try {
    const result = await api.context.with(api.trace.setSpan(parentContext, span), run);
    const failure = failureOf?.(result);
    if (failure !== undefined) {
      span.setAttribute('error.type', failure);
      span.setStatus({ code: api.SpanStatusCode.ERROR, message: failure });
    }
    return result;
  } catch (error) {
    span.setAttribute('error.type', (error as Error)?.name ?? 'Error');
    span.setStatus({
      code: api.SpanStatusCode.ERROR,
      message: error instanceof Error ? error.message : String(error),
    });
    throw error;
  } finally {
    span.end();
  }
}

function definedOnly(attributes: Attributes | undefined): Api.Attributes | undefined {
  if (!attributes) return undefined;
  const out: Api.Attributes = {};
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) out[key] = value;
  return out;
}

const NO_CONTEXT: Readonly<Record<string, string>> = Object.freeze({});

/**
 * The current span's context as W3C fields (`traceparent`, maybe `tracestate`, `baggage`), for
 * an outgoing call; empty (and shared) without tracing or outside a span.
 */
export function currentTraceContext(): Readonly<Record<string, string>> {
  if (tracing === undefined) return NO_CONTEXT;
  const carrier: Record<string, string> = {};
  tracing.api.propagation.inject(tracing.api.context.active(), carrier);
  return carrier;
}

/** Request params carrying the current trace context in `_meta`; the same object without. */
export function withTraceMeta<P extends Record<string, unknown>>(params: P): P {
  if (tracing === undefined) return params;
  const fields = currentTraceContext();
  if (!('traceparent' in fields)) return params;
  return { ...params, _meta: { ...(params._meta as object | undefined), ...fields } };
}

/** `fetch` adding the current trace context as headers, for outgoing HTTP MCP calls. */
export const fetchWithTraceContext = (url: string | URL, init?: RequestInit): Promise<Response> => {
  if (tracing === undefined) return fetch(url, init);
  const fields = currentTraceContext();
  if (!('traceparent' in fields)) return fetch(url, init);
  const headers = new Headers(init?.headers);
  for (const [name, value] of Object.entries(fields)) headers.set(name, value);
  return fetch(url, { ...init, headers });
};
