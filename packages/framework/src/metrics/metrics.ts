/**
 * Prometheus metrics (prom-client, on a private `Registry` so two servers in one process, or a
 * host application's own metrics, never collide):
 *
 * - `mcpbox_tool_calls_total{tool,plugin,outcome}` — outcome `ok`, `error` or `rejected`
 * - `mcpbox_tool_call_duration_seconds{tool,plugin}` — latency histogram
 * - `mcpbox_requests_total{method,era,outcome}` — every MCP request by its method (the
 *   `Mcp-Method`; unknown methods count as `other`), protocol era (`2025-11-25`, `2026-07-28`)
 *   and outcome (`ok`, `error`, `tool_error`)
 * - `mcpbox_request_duration_seconds{method,era}` — request latency histogram
 * - `mcpbox_sessions_open` — open MCP sessions
 * - `mcpbox_gate_unlocks_total{group}`, `mcpbox_gate_lockouts_total{group}`,
 *   `mcpbox_gate_failures_total{group}`, `mcpbox_gate_blocked_calls_total{group}`
 * - `mcpbox_oauth_rejections_total{reason}`
 * - with `limits:` configured only (a series per principal that called: label cardinality grows
 *   with the number of callers): `mcpbox_principal_calls_total{principal,outcome}` (outcome
 *   `admitted` or `refused`), `mcpbox_principal_cost_total{principal}` (budget spent, each call
 *   its rule's cost) and `mcpbox_limit_refusals_total{principal,limit}` (`rate`, `daily`,
 *   `concurrent`); exempt principals are not counted
 * - the standard `process_*` / `nodejs_*` metrics
 *
 * Gate and OAuth events arrive over `node:diagnostics_channel`, so a gate any plugin creates is
 * counted without being handed the metrics object.
 *
 * @module
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Counter, Histogram, Registry } from 'prom-client';
import { OAUTH_CHANNEL } from '../auth/introspection.ts';
import { GATE_CHANNEL, type GateEvent } from '../gate/gate.ts';
import { promClient } from '../lazy.ts';
import { LIMITS_CHANNEL, type LimitEvent } from '../limits/limiter.ts';
import { REQUEST_CHANNEL, type RequestEvent } from '../telemetry/requests.ts';

export type ToolCallOutcome = 'ok' | 'error' | 'rejected';

/** Seconds: from sub-millisecond local calls to minute-long upstream ones. */
const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** The methods counted by name; any other (a client's invention) is `other`: bounded labels. */
const KNOWN_METHODS = new Set([
  'tools/call',
  'tools/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
  'ping',
  'tasks/get',
  'tasks/result',
  'tasks/list',
  'tasks/cancel',
  'tasks/update',
]);

export interface ServerMetricsOptions {
  /** Include prom-client's process and Node.js metrics. Default `true`. */
  processMetrics?: boolean;
}

export class ServerMetrics {
  readonly registry: Registry = new (promClient().Registry)();
  readonly #calls: Counter<'tool' | 'plugin' | 'outcome'>;
  readonly #duration: Histogram<'tool' | 'plugin'>;
  readonly #gate: Record<GateEvent['event'], Counter<'group'>>;
  readonly #oauth: Counter<'reason'>;
  readonly #requests: Counter<'method' | 'era' | 'outcome'>;
  readonly #requestDuration: Histogram<'method' | 'era'>;
  #sessionSource: (() => number) | undefined;
  #lifecycleSource: (() => { reaped: number; refused: number }) | undefined;
  readonly #onGate = (message: unknown) => {
    const { event, group } = message as GateEvent;
    this.#gate[event]?.inc({ group });
  };
  readonly #onOAuth = (message: unknown) => {
    this.#oauth.inc({ reason: (message as { reason: string }).reason });
  };
  readonly #onLimit: (message: unknown) => void;
  readonly #onRequest = (message: unknown) => {
    const { method, era, outcome, seconds } = message as RequestEvent;
    const counted = KNOWN_METHODS.has(method) ? method : 'other';
    this.#requests.inc({ method: counted, era, outcome });
    this.#requestDuration.observe({ method: counted, era }, seconds);
  };

  constructor(options: ServerMetricsOptions = {}) {
    const { Counter, collectDefaultMetrics, Gauge, Histogram } = promClient();
    const registers = [this.registry];
    this.#calls = new Counter({
      name: 'mcpbox_tool_calls_total',
      help: 'Tool calls by tool, plugin and outcome (ok, error, rejected).',
      labelNames: ['tool', 'plugin', 'outcome'],
      registers,
    });
    this.#duration = new Histogram({
      name: 'mcpbox_tool_call_duration_seconds',
      help: 'Tool call latency, from the call arriving to the result leaving.',
      labelNames: ['tool', 'plugin'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    const metrics = this;
    new Gauge({
      name: 'mcpbox_sessions_open',
      help: 'Open MCP sessions.',
      registers,
      // Called by prom-client at every scrape; `this` is the gauge.
      collect() {
        if (metrics.#sessionSource !== undefined) this.set(metrics.#sessionSource());
      },
    });
    for (const [name, help, key] of [
      ['mcpbox_sessions_reaped_total', 'HTTP sessions closed for being idle.', 'reaped'],
      ['mcpbox_sessions_refused_total', 'New HTTP sessions refused at max_sessions.', 'refused'],
    ] as const) {
      new Counter({
        name,
        help,
        registers,
        collect() {
          const now = metrics.#lifecycleSource?.()[key];
          if (now === undefined) return;
          this.reset();
          this.inc(now);
        },
      });
    }
    const gateCounter = (name: string, help: string) =>
      new Counter({ name, help, labelNames: ['group'], registers });
    this.#gate = {
      unlock: gateCounter('mcpbox_gate_unlocks_total', 'Successful gate unlocks by group.'),
      lockout: gateCounter(
        'mcpbox_gate_lockouts_total',
        'Gate groups locked out after too many wrong codes.',
      ),
      failure: gateCounter('mcpbox_gate_failures_total', 'Wrong gate codes by group.'),
      blocked: gateCounter(
        'mcpbox_gate_blocked_calls_total',
        'Calls refused because their gate group was locked.',
      ),
    };
    this.#oauth = new Counter({
      name: 'mcpbox_oauth_rejections_total',
      help: 'HTTP requests refused by OAuth, by reason.',
      labelNames: ['reason'],
      registers,
    });
    this.#requests = new Counter({
      name: 'mcpbox_requests_total',
      help: 'MCP requests by method (Mcp-Method), protocol era and outcome (ok, error, tool_error).',
      labelNames: ['method', 'era', 'outcome'],
      registers,
    });
    this.#requestDuration = new Histogram({
      name: 'mcpbox_request_duration_seconds',
      help: 'MCP request latency by method and protocol era, from handler start to its answer.',
      labelNames: ['method', 'era'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry });
    this.#onLimit = limitCounters(registers);
    subscribe(LIMITS_CHANNEL, this.#onLimit);
    subscribe(GATE_CHANNEL, this.#onGate);
    subscribe(OAUTH_CHANNEL, this.#onOAuth);
    subscribe(REQUEST_CHANNEL, this.#onRequest);
  }

  /** Counts one finished tool call and its latency. */
  recordToolCall(call: {
    tool: string;
    plugin: string;
    outcome: ToolCallOutcome;
    seconds: number;
  }) {
    this.#calls.inc({ tool: call.tool, plugin: call.plugin, outcome: call.outcome });
    this.#duration.observe({ tool: call.tool, plugin: call.plugin }, call.seconds);
  }

  /** Reads how many sessions were reaped and refused at every scrape (the server's counters). */
  trackSessionLifecycle(read: () => { reaped: number; refused: number }): void {
    this.#lifecycleSource = read;
  }

  /** Reads the open-session count at every scrape (pass the server's live counter). */
  trackSessions(count: () => number): void {
    this.#sessionSource = count;
  }

  /** The exposition text. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** A `GET /metrics` route for the health server. */
  readonly handler = async (_req: IncomingMessage, res: ServerResponse): Promise<void> => {
    try {
      const body = await this.text();
      res.writeHead(200, { 'content-type': this.contentType }).end(body);
    } catch (error) {
      res
        .writeHead(500, { 'content-type': 'text/plain' })
        .end(`cannot collect metrics: ${error instanceof Error ? error.message : String(error)}\n`);
    }
  };

  /** Stops listening for gate and OAuth events. */
  close(): void {
    unsubscribe(LIMITS_CHANNEL, this.#onLimit);
    unsubscribe(GATE_CHANNEL, this.#onGate);
    unsubscribe(OAUTH_CHANNEL, this.#onOAuth);
    unsubscribe(REQUEST_CHANNEL, this.#onRequest);
  }
}

/** The per-principal counters of `limits:`, and what counts one limit event into them. */
function limitCounters(registers: Registry[]): (message: unknown) => void {
  const { Counter } = promClient();
  const calls = new Counter({
    name: 'mcpbox_principal_calls_total',
    help: 'Tool calls a limit saw, by principal and outcome (admitted, refused).',
    labelNames: ['principal', 'outcome'],
    registers,
  });
  const cost = new Counter({
    name: 'mcpbox_principal_cost_total',
    help: "Budget spent by admitted calls, by principal (each call counts its rule's cost).",
    labelNames: ['principal'],
    registers,
  });
  const refusals = new Counter({
    name: 'mcpbox_limit_refusals_total',
    help: 'Calls refused by a limit, by principal and limit (rate, daily, concurrent).',
    labelNames: ['principal', 'limit'],
    registers,
  });
  return (message) => {
    const event = message as LimitEvent;
    calls.inc({ principal: event.principal, outcome: event.outcome });
    if (event.outcome === 'admitted') cost.inc({ principal: event.principal }, event.cost);
    else refusals.inc({ principal: event.principal, limit: event.limit ?? 'rate' });
  };
}
