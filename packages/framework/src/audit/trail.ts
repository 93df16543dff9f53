/**
 * The server's seam to the audit trail: parts that decide something (pins, approvals,
 * management operations) record it here whether or not an audit log is configured; the
 * security layer attaches the log (`audit_log`) when there is one. With OTLP configured, every
 * record of the attached log — calls too — also goes out as an OpenTelemetry log record.
 *
 * @module
 */
import type { AuditRecorder } from '../contract/audit.ts';
import type { AuditLog } from './log.ts';
import type { AuditEntry, AuditRecord } from './record.ts';

/** Where records go besides the file: the OTLP export (`telemetry/auditLogs.ts`). */
export interface AuditSink {
  /** `line`: the record as the file holds it. */
  emit(record: AuditRecord, line: string): void;
}

export class AuditTrail implements AuditRecorder {
  #log: AuditLog | undefined;
  readonly #sink: AuditSink | undefined;

  constructor(sink?: AuditSink) {
    this.#sink = sink;
  }

  /** Whether records go anywhere: callers may skip building an entry when not. */
  get active(): boolean {
    return this.#log !== undefined;
  }

  /** Appends `entry` to the attached log; undefined when none is attached. */
  record(entry: AuditEntry): AuditRecord | undefined {
    return this.#log?.record(entry);
  }

  /** Sends later records to `log` until the returned function detaches it. */
  attach(log: AuditLog): () => void {
    this.#log = log;
    const sink = this.#sink;
    const stopSink = sink && log.onRecord((record, line) => sink.emit(record, line));
    return () => {
      stopSink?.();
      if (this.#log === log) this.#log = undefined;
    };
  }
}
