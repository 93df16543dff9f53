/**
 * Prometheus metrics (prom-client, on a private `Registry` so two servers in one process, or a
 * host application's own metrics, never collide):
 *
 * - `mcpbox_tool_calls_total{tool,plugin,outcome}` — outcome `ok`, `error` or `rejected`
 * - `mcpbox_tool_call_duration_seconds{tool,plugin}` — latency histogram
 * - `mcpbox_sessions_open` — open MCP sessions
 * - `mcpbox_gate_unlocks_total{group}`, `mcpbox_gate_lockouts_total{group}`,
 *   `mcpbox_gate_failures_total{group}`, `mcpbox_gate_blocked_calls_total{group}`
 * - `mcpbox_oauth_rejections_total{reason}`
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

export type ToolCallOutcome = 'ok' | 'error' | 'rejected';

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
  #sessionSource: (() => number) | undefined;
  #lifecycleSource: (() => { reaped: number; refused: number }) | undefined;
  readonly #onGate = (message: unknown) => {
    const { event, group } = message as GateEvent;
    this.#gate[event]?.inc({ group });
  };
  readonly #onOAuth = (message: unknown) => {
    this.#oauth.inc({ reason: (message as { reason: string }).reason });
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
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
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
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry });
    subscribe(GATE_CHANNEL, this.#onGate);
    subscribe(OAUTH_CHANNEL, this.#onOAuth);
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
    unsubscribe(GATE_CHANNEL, this.#onGate);
    unsubscribe(OAUTH_CHANNEL, this.#onOAuth);
  }
}
