/**
 * The server's seam to the audit trail: parts that decide something (pins, approvals,
 * management operations) record it here whether or not an audit log is configured; the
 * security layer attaches the log (`audit_log`) when there is one.
 *
 * @module
 */
import type { AuditRecorder } from '../contract/audit.ts';
import type { AuditLog } from './log.ts';
import type { AuditEntry, AuditRecord } from './record.ts';

export class AuditTrail implements AuditRecorder {
  #log: AuditLog | undefined;

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
    return () => {
      if (this.#log === log) this.#log = undefined;
    };
  }
}
