export { OtlpAuditExport } from './auditLogs.ts';
export {
  type EraLabel,
  observeRequest,
  REQUEST_CHANNEL,
  type RequestEvent,
} from './requests.ts';
export {
  type LogExportSettings,
  type OtelConfig,
  resolveLogExport,
  resolveTelemetry,
  type TelemetrySettings,
} from './settings.ts';
export { toolCallSpan, traceUpstreamRequest } from './spans.ts';
export {
  type Attributes,
  type Carrier,
  currentTraceContext,
  fetchWithTraceContext,
  flushTracing,
  inSpan,
  type SpanSpec,
  startTracing,
  stopTracing,
  tracingEnabled,
  tracingStarted,
  withTraceMeta,
} from './tracing.ts';
