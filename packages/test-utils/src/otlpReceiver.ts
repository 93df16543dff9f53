/**
 * A real OTLP/HTTP trace receiver for tests: a node:http server taking the JSON export requests
 * of `@opentelemetry/exporter-trace-otlp-http` at `/v1/traces`, flattening their spans.
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

export interface OtlpReceiver {
  /** Base endpoint, as `OTEL_EXPORTER_OTLP_ENDPOINT` takes it. */
  endpoint: string;
  spans(): ReceivedSpan[];
  /** Export requests received (any content). */
  readonly requests: number;
  /** Resolves with the spans once `done(spans)` holds; rejects with what arrived after `ms`. */
  waitFor(done: (spans: ReceivedSpan[]) => boolean, ms?: number): Promise<ReceivedSpan[]>;
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

function attributesOf(list: { key: string; value: AnyValue }[] | undefined) {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, plainValue(value)]));
}

export async function startOtlpReceiver(t: After): Promise<OtlpReceiver> {
  const received: ReceivedSpan[] = [];
  let requests = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests += 1;
      if (req.url !== '/v1/traces' || !/json/.test(req.headers['content-type'] ?? '')) {
        res.writeHead(415).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
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
    get requests() {
      return requests;
    },
    async waitFor(done, ms = 60_000) {
      const deadline = Date.now() + ms;
      while (!done(received)) {
        if (Date.now() > deadline) {
          const names = received.map((s) => `${s.service}:${s.name}`).join(', ');
          throw new Error(`spans did not arrive in ${ms} ms; got: ${names || 'none'}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return [...received];
    },
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
