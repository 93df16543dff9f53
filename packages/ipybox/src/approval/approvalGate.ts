/**
 * `ApprovalGate`: decides, before each tool call from kernel code, whether it may run.
 *
 * Policies: `auto` approves everything, `deny` refuses everything, `ask` hands each call to the
 * current approver as an {@link ApprovalRequest}.
 *
 * Privileged tools (`call.privileged`: the listing marks them, e.g. `register_mcp_server`, which
 * runs a command on the host outside any sandbox) are decided here for every route kernel code
 * has — registered servers and code mode's catalog alike: refused unless the operator allowed
 * them ({@link ALLOW_PRIVILEGED_SETTING}), and then `ask`ed even under `auto`. Approvers are attached and detached at run
 * time and form a stack: the most recently attached one decides (a WebSocket client that
 * connects, the MCP server's elicitation approver, or `CodeExecutor.stream` while it runs).
 * With `ask` and no approver, the call fails at once with "no approval client connected".
 *
 * An approval is a framework grant ({@link KernelGrants}, when the gate has them): an accepted
 * call gets a single-use grant over exactly that call, taken before it runs; a call that
 * presents a grant runs on it alone, or is refused (see `kernelGrants.ts` for the design).
 *
 * The gate is also an event source: `onRequest` listeners see every request that needs a
 * decision and can watch `request.settled`, which is how an executor pauses its execution
 * timeout while a human decides.
 *
 * @module
 */
import { createLogger, errorMessage, type Logger } from '@mcpbox/framework';
import {
  type ApprovalOutcome,
  ApprovalRequest,
  type Approver,
  askApprover,
  type ToolCall,
} from './approvalRequest.ts';
import type { KernelGrants } from './kernelGrants.ts';

export type ApprovalPolicy = 'auto' | 'deny' | 'ask';

/** Why a call may not run. `code` tells kernel code which Python exception to raise. */
export class ApprovalDeniedError extends Error {
  readonly code: Exclude<ApprovalOutcome, 'accepted'>;

  constructor(code: Exclude<ApprovalOutcome, 'accepted'>, message: string) {
    super(message);
    this.name = 'ApprovalDeniedError';
    this.code = code;
  }
}

/** The operator's setting that lets kernel code call privileged tools, as a refusal names it. */
export const ALLOW_PRIVILEGED_SETTING =
  'allow_privileged_tools: true under plugins.ipybox or plugins.code_mode, or ipybox --allow-privileged-tools';

export interface ApprovalGateOptions {
  /** Default `ask`: every call needs a decision from an attached approver. */
  policy?: ApprovalPolicy;
  /**
   * How long a request may wait for a decision, in ms; it then fails as `timeout` (Python
   * `ApprovalTimeout`). Default: no limit, as a human may take a while; the call still ends if
   * the kernel code is interrupted.
   */
  timeoutMs?: number;
  /**
   * The policy of one call when it differs by tool (code mode's per-plugin and per-tool rules);
   * `policy` applies when it is absent. Read on every call, so rules may change at run time.
   */
  policyFor?: (call: ToolCall) => ApprovalPolicy;
  /**
   * Whether kernel code may call privileged tools at all (the operator's
   * {@link ALLOW_PRIVILEGED_SETTING}); each such call is then asked, even under `auto`. Default
   * false: refused, naming the setting.
   */
  allowPrivileged?: boolean;
  /** Makes each approval a framework grant (`kernelGrants.ts`); none: a plain yes. */
  grants?: KernelGrants;
  logger?: Logger;
}

export class ApprovalGate {
  policy: ApprovalPolicy;
  timeoutMs: number | undefined;
  readonly #approvers: Approver[] = [];
  readonly #pending = new Map<Approver, Set<ApprovalRequest>>();
  readonly #listeners = new Set<(request: ApprovalRequest) => void>();
  readonly #logger: Logger;
  readonly #policyFor: ((call: ToolCall) => ApprovalPolicy) | undefined;
  readonly #allowPrivileged: boolean;
  readonly #grants: KernelGrants | undefined;
  /** Who each approver is, as grants name who approved (`ipybox:<name>`). */
  readonly #names = new WeakMap<Approver, string>();

  constructor({
    policy = 'ask',
    timeoutMs,
    policyFor,
    allowPrivileged = false,
    grants,
    logger,
  }: ApprovalGateOptions = {}) {
    this.#grants = grants;
    this.policy = policy;
    this.timeoutMs = timeoutMs;
    this.#policyFor = policyFor;
    this.#allowPrivileged = allowPrivileged;
    this.#logger = logger ?? createLogger('ipybox.approval');
  }

  /**
   * Makes `approver` the one that decides, until the returned function detaches it. `name` says
   * who it is in the grants it approves (`ipybox:elicit`, `ipybox:approval-client`).
   */
  attach(approver: Approver, name = 'approver'): () => void {
    this.#approvers.push(approver);
    this.#names.set(approver, name);
    return () => {
      const index = this.#approvers.lastIndexOf(approver);
      if (index >= 0) this.#approvers.splice(index, 1);
      // Requests it was deciding would otherwise wait for ever (or until the timeout).
      for (const request of this.#pending.get(approver) ?? []) {
        request.settle('unavailable', 'the approval client disconnected');
      }
      this.#pending.delete(approver);
    };
  }

  /** How many approvers are attached (0: calls under `ask` fail as `unavailable`). */
  get approverCount(): number {
    return this.#approvers.length;
  }

  /** Calls `listener` with every request that waits for a decision. Returns an unsubscriber. */
  onRequest(listener: (request: ApprovalRequest) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Resolves when `call` may run — with the token of the grant that approved it, when one did —
   * otherwise throws {@link ApprovalDeniedError}. `grant`: a token the caller presents instead
   * of being asked. `signal` ends the wait early (as `cancelled`) when the caller has gone.
   */
  async check(
    call: ToolCall,
    { signal, grant }: { signal?: AbortSignal; grant?: string } = {},
  ): Promise<string | undefined> {
    const what = `${call.server_name}.${call.tool_name}`;
    const policy = this.#policyOf(call, what);
    if (policy === 'auto') return undefined;
    if (policy === 'deny') {
      throw new ApprovalDeniedError(
        'rejected',
        `call to ${what} rejected: tool calls are denied by policy`,
      );
    }
    if (grant !== undefined) return this.#presented(call, grant, what);
    const approver = this.#approvers.at(-1);
    if (!approver) {
      throw new ApprovalDeniedError(
        'unavailable',
        `cannot run ${what}: no approval client connected`,
      );
    }

    const request = new ApprovalRequest(call);
    const stop = this.#bound(request, signal);
    for (const listener of this.#listeners) {
      try {
        listener(request);
      } catch (error) {
        this.#logger.warn(`approval listener failed: ${errorMessage(error)}`);
      }
    }
    if (request.pending) this.#ask(approver, request);
    const outcome = await request.settled;
    stop();
    if (outcome !== 'accepted') {
      throw new ApprovalDeniedError(outcome, this.#explain(what, outcome, request.reason));
    }
    if (this.#grants === undefined) return undefined;
    const subject = this.#grants.subject(call, this.policy);
    const sealed = await this.#grants.approved(subject, `ipybox:${this.#names.get(approver)}`);
    if (sealed.ok) return sealed.token;
    throw new ApprovalDeniedError('rejected', `call to ${what} refused: ${sealed.message}`);
  }

  /** A call that presents a grant runs on it alone: no one is asked. */
  async #presented(call: ToolCall, token: string, what: string): Promise<string> {
    if (this.#grants === undefined) {
      throw new ApprovalDeniedError(
        'rejected',
        `call to ${what} refused: it presents an approval grant, and grants are not checked here`,
      );
    }
    const taken = await this.#grants.take(token, this.#grants.subject(call, this.policy));
    if (taken.ok) return token;
    throw new ApprovalDeniedError('rejected', `call to ${what} refused: ${taken.message}`);
  }

  /** The call's policy; a privileged call is refused, or asked where `auto` would let it run. */
  #policyOf(call: ToolCall, what: string): ApprovalPolicy {
    const policy = this.#policyFor?.(call) ?? this.policy;
    if (call.privileged !== true) return policy;
    if (!this.#allowPrivileged) {
      throw new ApprovalDeniedError(
        'rejected',
        `call to ${what} refused: it is a privileged tool (it runs programs on the host, outside ` +
          'any sandbox), which code may call only when the operator allows it ' +
          `(${ALLOW_PRIVILEGED_SETTING}; each call then needs an approval). Call the tool ` +
          'directly instead.',
      );
    }
    return policy === 'auto' ? 'ask' : policy;
  }

  /** Runs the approver; a boolean it returns decides, a throw makes the request unavailable. */
  #ask(approver: Approver, request: ApprovalRequest): void {
    const pending = this.#pending.get(approver) ?? new Set<ApprovalRequest>();
    this.#pending.set(approver, pending);
    pending.add(request);
    void request.settled.then(() => pending.delete(request));
    askApprover(approver, request, (error) => {
      this.#logger.warn(`approver failed for ${request}: ${errorMessage(error)}`);
      request.settle('unavailable', `the approver failed: ${errorMessage(error)}`);
    });
  }

  /** Applies the timeout and the caller's signal; returns the cleanup. */
  #bound(request: ApprovalRequest, signal: AbortSignal | undefined): () => void {
    const timer =
      this.timeoutMs === undefined
        ? undefined
        : setTimeout(() => request.settle('timeout'), this.timeoutMs);
    const onAbort = () => request.settle('cancelled', 'the caller went away');
    if (signal?.aborted) onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    return () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
  }

  #explain(what: string, outcome: Exclude<ApprovalOutcome, 'accepted'>, reason?: string): string {
    switch (outcome) {
      case 'rejected':
        return `call to ${what} rejected by the approver`;
      case 'timeout':
        return `no approval decision for ${what} ${reason ?? `within ${(this.timeoutMs ?? 0) / 1000} s`}`;
      case 'unavailable':
        return `cannot run ${what}: ${reason ?? 'no approval client connected'}`;
      case 'cancelled':
        return `approval of ${what} cancelled: ${reason ?? 'the caller went away'}`;
    }
  }
}
