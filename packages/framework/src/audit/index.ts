/**
 * The audit trail: an append-only, hash-chained log of decisions (tool calls allowed or refused
 * and by which rule; approvals, pins and operations), and its verification.
 *
 * @module
 */

export type { AuditRecorder } from '../contract/audit.ts';
export { AuditLog, type AuditLogOptions } from './log.ts';
export {
  AUDIT_META_KEY,
  type AuditDecision,
  type AuditEntry,
  type AuditKind,
  type AuditRecord,
  argsDigest,
  GENESIS,
  recordId,
} from './record.ts';
export { AuditTrail } from './trail.ts';
export { type AuditVerification, verifyAuditLog } from './verify.ts';
