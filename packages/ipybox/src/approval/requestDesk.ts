/**
 * One approval client's desk: the requests the {@link ApprovalGate} hands to it as an approver,
 * in the shape the framework's approval WebSocket serves (`ApprovalSocket`), so ipybox's
 * `/approval` speaks the one protocol mcp-proxy's does. A request leaves the list when it
 * settles; `endedAs` tells the socket why (timeout, unavailable, cancelled) for its
 * `cancelled` notice.
 *
 * @module
 */
import type { PendingApproval, SocketDesk } from '@mcpbox/framework';
import type { ApprovalGate } from './approvalGate.ts';
import type { ApprovalOutcome, ApprovalRequest } from './approvalRequest.ts';

/** How a kernel code call shows as a waiting call (no principal or policy of its own here). */
function asPending(request: ApprovalRequest, since: number, timeoutMs: number | undefined) {
  return {
    id: request.id,
    subject: {
      principal: 'kernel',
      server: request.serverName,
      tool: request.toolName,
      argsDigest: '',
      policyVersion: '',
    },
    args: request.toolArgs,
    rule: request.privileged ? 'privileged tool' : 'approval: ask',
    via: 'code',
    since,
    expiresAt: timeoutMs === undefined ? Number.POSITIVE_INFINITY : since + timeoutMs,
    ...(request.privileged && { privileged: true }),
  } satisfies PendingApproval & { privileged?: boolean };
}

/** Requests that ended, kept for the socket to say why. */
const ENDED_KEPT = 100;

export class RequestDesk implements SocketDesk {
  readonly #waiting = new Map<string, { request: ApprovalRequest; since: number }>();
  readonly #ended = new Map<string, ApprovalOutcome>();
  readonly #listeners = new Set<() => void>();
  readonly #timeoutMs: () => number | undefined;
  readonly detach: () => void;

  /** Attaches to `gate` as its newest approver until {@link detach}. */
  constructor(gate: ApprovalGate) {
    this.#timeoutMs = () => gate.timeoutMs;
    this.detach = gate.attach((request) => {
      this.#waiting.set(request.id, { request, since: Date.now() });
      void request.settled.then((outcome) => {
        this.#waiting.delete(request.id);
        this.#ended.set(request.id, outcome);
        if (this.#ended.size > ENDED_KEPT) {
          this.#ended.delete(this.#ended.keys().next().value as string);
        }
        this.#changed();
      });
      this.#changed();
      return undefined; // decided when the client answers
    }, 'approval-client');
  }

  async pending() {
    return [...this.#waiting.values()].map(({ request, since }) =>
      asPending(request, since, this.#timeoutMs()),
    );
  }

  async answer(id: string, approve: boolean): Promise<{ ok: boolean; reason?: string }> {
    const request = this.#waiting.get(id)?.request;
    if (request === undefined) return { ok: false, reason: this.#ended.get(id) ?? 'unknown' };
    const decided = approve ? request.accept() : request.reject();
    if (!decided) return { ok: false, reason: request.outcome };
    return approve ? { ok: true } : { ok: false, reason: 'refused' };
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  endedAs(id: string): string | undefined {
    return this.#ended.get(id);
  }

  #changed(): void {
    for (const listener of this.#listeners) listener();
  }
}
