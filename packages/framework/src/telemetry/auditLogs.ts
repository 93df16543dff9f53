/**
 * The audit trail as OpenTelemetry log records, when OTLP is configured: each record the audit
 * log seals goes to the collector's `/v1/logs` too, its body the record's line exactly as the
 * file holds it (so the chain can be checked from the collector's copy) and its fields as
 * attributes `mcpbox.audit.<field>`, the hash included.
 *
 * The logs SDK and its exporter are imported with the first record, not before: a server with
 * OTLP off, or with no audit log, never loads them. Records sealed while they load wait (a
 * bounded number). The file stays the record of truth: an export that fails loses nothing there.
 *
 * @module
 */
import type { Logger as OtelLogger } from '@opentelemetry/api-logs';
import type { AuditRecord } from '../audit/record.ts';
import type { AuditSink } from '../audit/trail.ts';
import { createLogger, type Logger } from '../logging/index.ts';
import type { LogExportSettings } from './settings.ts';

/** Records kept while the SDK loads; past this they reach the file alone. */
const MAX_PENDING = 10_000;

/** OpenTelemetry's severity numbers (fixed by the logs data model). */
const INFO = 9;
const WARN = 13;

/** Decisions that refused something, sent as warnings. */
const REFUSALS = new Set(['denied', 'rejected', 'refused', 'quarantined', 'error']);

interface Loaded {
  logger: OtelLogger;
  provider: { forceFlush(): Promise<void>; shutdown(): Promise<void> };
}

export class OtlpAuditExport implements AuditSink {
  readonly #settings: LogExportSettings;
  readonly #log: Logger;
  #pending: Array<[AuditRecord, string]> = [];
  #loading: Promise<void> | undefined;
  #loaded: Loaded | undefined;
  #closed = false;

  constructor(settings: LogExportSettings, log: Logger = createLogger('telemetry')) {
    this.#settings = settings;
    this.#log = log;
  }

  emit(record: AuditRecord, line: string): void {
    if (this.#closed) return;
    if (this.#loaded !== undefined) {
      send(this.#loaded.logger, record, line);
      return;
    }
    if (this.#pending.length < MAX_PENDING) this.#pending.push([record, line]);
    this.#loading ??= this.#load();
  }

  /** Sends what is waiting (before a process ends). */
  async flush(): Promise<void> {
    await this.#loading;
    await this.#loaded?.provider.forceFlush().catch(() => undefined);
  }

  /** Sends what is waiting and stops; later records reach the file alone. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#loading;
    await this.#loaded?.provider.shutdown().catch(() => undefined);
  }

  async #load(): Promise<void> {
    const { logsUrl, serviceName, exportDelayMs } = this.#settings;
    try {
      const [sdk, otlp, resources] = await Promise.all([
        import('@opentelemetry/sdk-logs'),
        import('@opentelemetry/exporter-logs-otlp-http'),
        import('@opentelemetry/resources'),
      ]);
      const provider = new sdk.LoggerProvider({
        resource: resources.resourceFromAttributes({ 'service.name': serviceName }),
        processors: [
          new sdk.BatchLogRecordProcessor({
            exporter: new otlp.OTLPLogExporter({ url: logsUrl }),
            scheduledDelayMillis: exportDelayMs,
          }),
        ],
      });
      this.#loaded = { logger: provider.getLogger('mcpbox.audit'), provider };
      for (const [record, line] of this.#pending) send(this.#loaded.logger, record, line);
    } catch (error) {
      this.#closed = true;
      this.#log.warn(
        `OpenTelemetry: cannot export the audit trail as log records (${error instanceof Error ? error.message : error}); the audit log file has every record`,
      );
    } finally {
      this.#pending = [];
    }
  }
}

function send(logger: OtelLogger, record: AuditRecord, line: string): void {
  const attributes: Record<string, string | number> = {};
  for (const [key, value] of Object.entries(record)) attributes[`mcpbox.audit.${key}`] = value;
  const refusal = record.decision !== undefined && REFUSALS.has(record.decision);
  logger.emit({
    eventName: 'mcpbox.audit',
    timestamp: Date.parse(record.time),
    severityNumber: refusal ? WARN : INFO,
    severityText: refusal ? 'WARN' : 'INFO',
    body: line,
    attributes,
  });
}
