/**
 * Prometheus metrics for tool calls, sessions, the gate and OAuth.
 *
 * @module
 */
export { ServerMetrics, type ServerMetricsOptions, type ToolCallOutcome } from './metrics.ts';
