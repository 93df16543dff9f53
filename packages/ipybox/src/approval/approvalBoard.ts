/**
 * `ApprovalBoard`: the in-process approval client of one ipybox — what a host's operator page
 * (mcp-proxy's web console) uses to see pending approvals of every kernel and answer them.
 *
 * It attaches to each kernel's {@link ApprovalGate} exactly as a WebSocket `ApprovalClient`
 * connection does (`gate.attach`), but only while a host has it open (`open()`): with nobody
 * looking, a call under `approval: channel` fails at once with "no approval client connected"
 * instead of waiting for a person who is not there. The first decision wins; answering a request
 * twice, or after it timed out, is refused with what happened to it.
 *
 * @module
 */
import type { ApprovalGate } from './approvalGate.ts';
import type { ApprovalOutcome, ApprovalRequest } from './approvalRequest.ts';

/** A request waiting on the board. */
export interface PendingApproval {
  id: string;
  kernelId: string;
  serverName: string;
  toolName: string;
  toolArgs: Readonly<Record<string, unknown>>;
  /** The tool runs programs on the host (`ApprovalRequest.privileged`). */
  privileged: boolean;
  /** `Date.now()` when it arrived. */
  since: number;
}

/** Requests that ended, kept so a late answer hears why it came too late. */
const ENDED_KEPT = 500;

export class ApprovalBoard {
  readonly #gates = new Map<ApprovalGate, string>();
  readonly #detach = new Map<ApprovalGate, () => void>();
  readonly #pending = new Map<string, { request: ApprovalRequest; info: PendingApproval }>();
  readonly #ended = new Map<string, ApprovalOutcome>();
  #opened = 0;

  /** Follows a kernel's gate until the returned function is called (the kernel closed). */
  watch(gate: ApprovalGate, kernelId: string): () => void {
    this.#gates.set(gate, kernelId);
    if (this.#opened > 0) this.#attach(gate, kernelId);
    return () => {
      this.#gates.delete(gate);
      this.#detach.get(gate)?.();
      this.#detach.delete(gate);
    };
  }

  /** A host starts deciding: attached to every gate until the returned function is called. */
  open(): () => void {
    this.#opened += 1;
    if (this.#opened === 1) for (const [gate, id] of this.#gates) this.#attach(gate, id);
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      this.#opened -= 1;
      if (this.#opened > 0) return;
      // Detaching makes the gates fail what we were deciding as `unavailable`.
      for (const detach of this.#detach.values()) detach();
      this.#detach.clear();
    };
  }

  /** Pending requests, oldest first. */
  pending(): PendingApproval[] {
    return [...this.#pending.values()].map((p) => p.info);
  }

  /**
   * Approves or denies request `id`. Returns what was done; throws when the request is unknown
   * or already ended (answered, timed out, or its cell interrupted).
   */
  answer(id: string, approve: boolean): string {
    const entry = this.#pending.get(id);
    if (entry === undefined) {
      const ended = this.#ended.get(id);
      throw new Error(
        ended === undefined
          ? `no pending approval ${id}: it does not exist (or ended long ago)`
          : `approval ${id} already ended (${ended}); nothing was changed`,
      );
    }
    const { request, info } = entry;
    const decided = approve ? request.accept() : request.reject();
    if (!decided) throw new Error(`approval ${id} already ended (${request.outcome})`);
    return `${approve ? 'approved' : 'denied'} ${info.serverName}.${info.toolName}`;
  }

  #attach(gate: ApprovalGate, kernelId: string): void {
    if (this.#detach.has(gate)) return;
    const detach = gate.attach((request) => {
      this.#pending.set(request.id, {
        request,
        info: {
          id: request.id,
          kernelId,
          serverName: request.serverName,
          toolName: request.toolName,
          toolArgs: request.toolArgs,
          privileged: request.privileged,
          since: Date.now(),
        },
      });
      void request.settled.then((outcome) => {
        this.#pending.delete(request.id);
        this.#ended.set(request.id, outcome);
        if (this.#ended.size > ENDED_KEPT) {
          this.#ended.delete(this.#ended.keys().next().value as string);
        }
      });
      return undefined; // decided when the operator answers
    }, 'console');
    this.#detach.set(gate, detach);
  }
}
