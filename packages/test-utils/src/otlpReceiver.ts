/**
 * A real OTLP/HTTP receiver for tests, standing in for a collector: a node:http server taking the
 * JSON export requests of `@opentelemetry/exporter-trace-otlp-http` at `/v1/traces` and of
 * `@opentelemetry/exporter-logs-otlp-http` at `/v1/logs`, flattening their spans and log records.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

type After = { after(fn: () => unknown): void };

export interface ReceivedSpan {
  service: string;
  name: string;
  /** OTLP's enum: 1 internal, 2 server, 3 client. */
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  attributes: Record<string, unknown>;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  status: number;
}

export interface ReceivedLog {
  service: string;
  eventName: string | undefined;
  severityText: string | undefined;
  body: unknown;
  attributes: Record<string, unknown>;
}

export interface OtlpReceiver {
  /** Base endpoint, as `OTEL_EXPORTER_OTLP_ENDPOINT` takes it. */
  endpoint: string;
  spans(): ReceivedSpan[];
  logs(): ReceivedLog[];
  /** Export requests received (any content). */
  readonly requests: number;
  /** Resolves with the spans once `done(spans)` holds; rejects with what arrived after `ms`. */
  waitFor(done: (spans: ReceivedSpan[]) => boolean, ms?: number): Promise<ReceivedSpan[]>;
  /** Resolves with the log records once `done(logs)` holds; rejects after `ms`. */
  waitForLogs(done: (logs: ReceivedLog[]) => boolean, ms?: number): Promise<ReceivedLog[]>;
}

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
};

function plainValue(value: AnyValue | undefined): unknown {
  if (!value) return undefined;
  return value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue;
}

function attributesOf(list: Attrs | undefined) {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, plainValue(value)]));
}

type Attrs = { key: string; value: AnyValue }[];
type Resource = { resource?: { attributes?: Attrs } };

/** The parts of an OTLP/JSON export request the receiver reads. */
interface OtlpBody {
  resourceSpans?: Array<
    Resource & {
      scopeSpans?: Array<{
        spans?: Array<{
          name: string;
          kind: number;
          traceId: string;
          spanId: string;
          parentSpanId?: string;
          attributes?: Attrs;
          status?: { code?: number };
        }>;
      }>;
    }
  >;
  resourceLogs?: Array<
    Resource & {
      scopeLogs?: Array<{
        logRecords?: Array<{
          eventName?: string;
          severityText?: string;
          body?: AnyValue;
          attributes?: Attrs;
        }>;
      }>;
    }
  >;
}

function spansOf(body: OtlpBody, received: ReceivedSpan[]): void {
  for (const resourceSpans of body.resourceSpans ?? []) {
    const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name']);
    for (const scope of resourceSpans.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) {
        received.push({
          service,
          name: span.name,
          kind: span.kind,
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId || undefined,
          attributes: attributesOf(span.attributes),
          status: span.status?.code ?? 0,
        });
      }
    }
  }
}

function logsOf(body: OtlpBody, received: ReceivedLog[]): void {
  for (const resourceLogs of body.resourceLogs ?? []) {
    const service = String(attributesOf(resourceLogs.resource?.attributes)['service.name']);
    for (const scope of resourceLogs.scopeLogs ?? []) {
      for (const log of scope.logRecords ?? []) {
        received.push({
          service,
          eventName: log.eventName || undefined,
          severityText: log.severityText || undefined,
          body: plainValue(log.body),
          attributes: attributesOf(log.attributes),
        });
      }
    }
  }
}

/** Polls until `done(items())` holds; the error names what arrived (`show`). */
async function waitUntil<T>(
  items: T[],
  done: (items: T[]) => boolean,
  ms: number,
  what: string,
  show: (item: T) => string,
): Promise<T[]> {
  const deadline = Date.now() + ms;
  while (!done(items)) {
    if (Date.now() > deadline) {
      throw new Error(
        `${what} did not arrive in ${ms} ms; got: ${items.map(show).join(', ') || 'none'}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return [...items];
}

export async function startOtlpReceiver(t: After): Promise<OtlpReceiver> {
  const received: ReceivedSpan[] = [];
  const logs: ReceivedLog[] = [];
  let requests = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests += 1;
      const json = /json/.test(req.headers['content-type'] ?? '');
      if (!json || (req.url !== '/v1/traces' && req.url !== '/v1/logs')) {
        res.writeHead(415).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (req.url === '/v1/logs') logsOf(body, logs);
      else spansOf(body, received);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoint,
    spans: () => [...received],
    logs: () => [...logs],
    get requests() {
      return requests;
    },
    waitFor: (done, ms = 60_000) =>
      waitUntil(received, done, ms, 'spans', (s) => `${s.service}:${s.name}`),
    waitForLogs: (done, ms = 60_000) =>
      waitUntil(logs, done, ms, 'log records', (l) => `${l.service}:${l.eventName}`),
  };
}

/** A W3C traceparent of a fresh, sampled trace: the test plays the client's tracer. */
export function clientTraceparent(): { traceparent: string; traceId: string; spanId: string } {
  const hex = (bytes: number) =>
    Array.from({ length: bytes }, () =>
      Math.floor(Math.random() * 256)
        .toString(16)
        .padStart(2, '0'),
    ).join('');
  const traceId = hex(16);
  const spanId = hex(8);
  return { traceparent: `00-${traceId}-${spanId}-01`, traceId, spanId };
}
