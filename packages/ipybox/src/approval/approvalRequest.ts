/**
 * One pending approval: a tool call from kernel code waiting for a yes or no.
 *
 * The same class serves both ends: the host's {@link ApprovalGate} creates one per call, and the
 * {@link ApprovalClient} recreates one from each `approve` request it receives. Whoever holds it
 * decides with `accept()` or `reject()`; the first decision wins, later ones are ignored, so an
 * approval UI, a timeout and a disconnect can race safely.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';

/** What kernel code asked to run, in the wire's snake_case (as sent in JSON-RPC `approve`). */
export interface ToolCall {
  server_name: string;
  tool_name: string;
  tool_args: Record<string, unknown>;
  /**
   * Set by the host, never taken from kernel code: the tool's listing marks it privileged (it
   * runs programs on the host, such as `register_mcp_server`; see `isPrivileged`).
   */
  privileged?: true;
}

/**
 * How a request ended. `accepted`/`rejected` are decisions; `timeout` means no decision came in
 * time; `unavailable` means nobody could decide (no client, client gone, approver failed);
 * `cancelled` means the caller stopped waiting (the kernel code was interrupted).
 */
export type ApprovalOutcome = 'accepted' | 'rejected' | 'timeout' | 'unavailable' | 'cancelled';

export class ApprovalRequest {
  /** Correlates the JSON-RPC request with its response. */
  readonly id: string;
  readonly serverName: string;
  readonly toolName: string;
  readonly toolArgs: Readonly<Record<string, unknown>>;
  /** The tool is privileged: approvers should say so (it runs programs on the host). */
  readonly privileged: boolean;
  /** Resolves once, with how the request ended. Never rejects. */
  readonly settled: Promise<ApprovalOutcome>;
  #outcome: ApprovalOutcome | undefined;
  #reason: string | undefined;
  #resolve!: (outcome: ApprovalOutcome) => void;

  constructor(call: ToolCall, id: string = randomUUID()) {
    this.id = id;
    this.serverName = call.server_name;
    this.toolName = call.tool_name;
    this.toolArgs = call.tool_args;
    this.privileged = call.privileged === true;
    this.settled = new Promise((resolve) => {
      this.#resolve = resolve;
    });
  }

  /** The outcome, once settled. */
  get outcome(): ApprovalOutcome | undefined {
    return this.#outcome;
  }

  /** Why a request ended without a decision (for error messages), when known. */
  get reason(): string | undefined {
    return this.#reason;
  }

  get pending(): boolean {
    return this.#outcome === undefined;
  }

  /** Approves the call. Returns false if the request had already ended. */
  accept(): boolean {
    return this.settle('accepted');
  }

  /** Refuses the call. Returns false if the request had already ended. */
  reject(): boolean {
    return this.settle('rejected');
  }

  /**
   * Ends the request with any outcome (used by gates, channels and clients for timeouts and
   * disconnects). The first call wins; returns whether this call was it.
   */
  settle(outcome: ApprovalOutcome, reason?: string): boolean {
    if (this.#outcome !== undefined) return false;
    this.#outcome = outcome;
    this.#reason = reason;
    this.#resolve(outcome);
    return true;
  }

  /** The wire form, as sent in the `approve` request's params. */
  toJSON(): ToolCall {
    return {
      server_name: this.serverName,
      tool_name: this.toolName,
      tool_args: { ...this.toolArgs },
      ...(this.privileged && { privileged: true as const }),
    };
  }

  /** `server.tool(key='value', n=1)`: a one-line summary for approval prompts and logs. */
  toString(): string {
    const args = Object.entries(this.toolArgs)
      .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
      .join(', ');
    return `${this.serverName}.${this.toolName}(${args})`;
  }
}

/**
 * Decides one request: return `true`/`false`, or return nothing and call `request.accept()` /
 * `request.reject()` later (for example after a user clicked). Throwing means "could not decide";
 * what follows depends on the side (the gate fails the call as `unavailable`, the client rejects).
 */
export type Approver = (
  request: ApprovalRequest,
) => boolean | undefined | Promise<boolean | undefined>;

/** Runs `approver` on `request` without blocking: a boolean it returns decides, a throw goes to `onFailure`. */
export function askApprover(
  approver: Approver,
  request: ApprovalRequest,
  onFailure: (error: unknown) => void,
): void {
  Promise.resolve()
    .then(() => approver(request))
    .then((decision) => {
      if (decision === true) request.accept();
      else if (decision === false) request.reject();
    }, onFailure);
}
