/**
 * The audit trail's records as plugins see them: what a decision recorded (`AuditEntry`), what
 * the log wrote (`AuditRecord`), and the server's recorder (`server.audit`) a plugin that
 * decides on its own route (ipybox's approvals of kernel code) records through. The chain, the
 * file and its verification are the framework's (`audit/`).
 *
 * @module
 */

/**
 * What a record is about: a tool call's admission and outcome, an approval, a definition pin,
 * a management operation, or the writer finding the file damaged when it started (`break`).
 */
export type AuditKind = 'call' | 'approval' | 'pin' | 'operation' | 'break';

/**
 * `allowed` (ran and succeeded), `error` (allowed, ran, failed), `denied` (by policy),
 * `rejected` (by the pre-call validator or the gate); the others for approvals and pins.
 */
export type AuditDecision =
  | 'allowed'
  | 'denied'
  | 'error'
  | 'rejected'
  | 'asked'
  | 'granted'
  | 'refused'
  | 'created'
  | 'quarantined'
  | 'approved';

/** What a caller records; `seq`, `time`, `prev` and `hash` are the log's. */
export interface AuditEntry {
  kind: AuditKind;
  /** The principal's id (`contract/principal.ts`), when there is one. */
  principal?: string;
  tool?: string;
  plugin?: string;
  /** The view the call came through, when not the whole catalog. */
  view?: string;
  /** SHA-256 (hex) of the canonical JSON of the arguments: see {@link argsDigest}. */
  args_sha256?: string;
  decision?: AuditDecision;
  /** What decided: a policy rule's name, `default`, `validator`, `gate:<group>`. */
  rule?: string;
  /** A management operation's name. */
  operation?: string;
  /** What a management operation acted on besides a plugin, tool or view: a command's name. */
  target?: string;
  /** Who decided an approval or operation, when not the principal. */
  by?: string;
  grant?: string;
  pin?: string;
  /** A `break` record: what the writer found. */
  problem?: string;
}

/** A record as written: the entry with its place in the chain. */
export interface AuditRecord extends AuditEntry {
  seq: number;
  /** ISO 8601, UTC. */
  time: string;
  prev: string;
  hash: string;
}

/** The server's audit trail (`AuditTrail`): records go to the attached log, if any. */
export interface AuditRecorder {
  /** Whether records go anywhere: callers may skip building an entry when not. */
  readonly active: boolean;
  /** Appends `entry`; undefined when no log is attached. */
  record(entry: AuditEntry): AuditRecord | undefined;
}
