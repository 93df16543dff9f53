/**
 * Approvals bound to the call: the types every part shares — the grant book and the dispatcher
 * in the framework, management (REST, CLI, `proxy__*` tools), the console and the approval
 * WebSocket, ipybox's kernel code route.
 *
 * A grant says: this principal may call this tool of this server with exactly these arguments
 * (the SHA-256 of their RFC 8785 canonical JSON) under this policy version, once, before it
 * expires. It cannot be replayed, moved to other arguments, principal or tool; a tampered or
 * expired one is refused and nothing runs.
 *
 * @module
 */

/** Who is asked: the caller's client (2026 `input_required`, 2025 elicitation), or an operator. */
export type ApproverKind = 'client' | 'operator';

/** The exact call a grant is for. */
export interface ApprovalSubject {
  /** `Principal.id` of the caller. */
  readonly principal: string;
  /** The plugin (server) that owns the tool. */
  readonly server: string;
  /** The tool's catalog name. */
  readonly tool: string;
  /** SHA-256 (hex) of the arguments' canonical JSON, after a view's fixed arguments are set. */
  readonly argsDigest: string;
  /** Digest of the policy in force: a reload that changes the policy voids earlier grants. */
  readonly policyVersion: string;
}

export interface Grant {
  /** Random id; single use. */
  readonly id: string;
  readonly subject: ApprovalSubject;
  /** Who approved: an operator's principal id, `client:<principal id>`, or `ipybox:<approver>`. */
  readonly by: string;
  /** Milliseconds since the epoch. */
  readonly issuedAt: number;
  readonly expiresAt: number;
}

/** A call waiting for an operator (console, approval WebSocket, REST/CLI). */
export interface PendingApproval {
  readonly id: string;
  readonly subject: ApprovalSubject;
  /** The arguments as the operator should see them (secrets redacted). */
  readonly args: Readonly<Record<string, unknown>>;
  /** The policy rule that asked for approval. */
  readonly rule: string;
  /** Which route the call came by: `call` (a client), `code` (kernel code, code mode). */
  readonly via: string;
  /** Milliseconds since the epoch. */
  readonly since: number;
  /** When the waiting call gives up (refused as expired). */
  readonly expiresAt: number;
}

/** What an answer came to; an answer to a request that already ended says how it ended. */
export type ApprovalAnswer =
  | { readonly ok: true; readonly grant: Grant }
  | { readonly ok: false; readonly reason: 'unknown' | 'answered' | 'expired' | 'refused' };

/** What management and the console read and answer (`server.approvals`). */
export interface ApprovalDesk {
  /** Calls waiting for an operator, on every replica. */
  pending(): Promise<PendingApproval[]>;
  /** Approves (a single-use grant for exactly that call) or refuses one waiting call. */
  answer(id: string, approve: boolean, by: string): Promise<ApprovalAnswer>;
  /** Called when a call starts or stops waiting. Returns a remover. */
  onChange(listener: () => void): () => void;
}
