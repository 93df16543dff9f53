/**
 * Kernel code's approvals as framework grants. The seam, and why it is here:
 *
 * Kernel code reaches tools by `POST /run` on its kernel's tool server (`toolserver/
 * runToolCall.ts`): a registered server's call goes straight to the kernel's own upstream pool,
 * and in code mode a catalog tool goes through `server.catalog.callTool(..., {via: 'code'})`,
 * i.e. the framework's `ToolCallDispatcher` — where a policy `approve` rule asks the rule's
 * approver and takes a grant like for any other route. The first path never meets the
 * dispatcher, so the tool server's {@link ApprovalGate} is the one step every kernel code call
 * passes, and it keeps deciding *whether and whom to ask*: its modes (auto, deny, ask), the
 * approver stack (the cell's elicitation, approval clients over the WebSocket, the console's
 * board), the cell clock paused while a human decides, privileged tools refused or always asked.
 *
 * What an approval *is* comes from the framework: when the gate's approver accepts a call, a
 * grant over exactly {principal of the running cell, server, tool, SHA-256 of the canonical
 * arguments, the gate's policy} is issued in the process's grant book (`processGrants`, HMAC'd,
 * shared with the dispatcher and, in cluster mode, the replicas) and taken at once, before the
 * call runs: single use, recorded in the audit trail (kind `approval`) when the server gave one.
 * The reply names the grant's token. Kernel code may present a token with a call (`grant` in
 * the body, as a client does in `_meta["io.mcpbox/grant"]`): the call then runs only if that
 * grant is for exactly this call and was never taken — a replayed, tampered, expired or moved
 * grant is refused, nothing runs, and no one is asked.
 *
 * @module
 */
import {
  type ApprovalSubject,
  type AuditRecorder,
  argsDigest,
  type GrantBook,
  type GrantTaking,
} from '@mcpbox/framework';
import type { ToolCall } from './approvalRequest.ts';

export interface KernelGrantsOptions {
  book: GrantBook;
  /** `Principal.id` of the cell's caller whose code makes the call. */
  principal: () => string;
  /** Where approvals are recorded (`server.audit`); none: not recorded. */
  audit?: AuditRecorder;
  /** How long an issued grant lives before it is taken. Default 60 s (it is taken at once). */
  ttlMs?: number;
}

export class KernelGrants {
  readonly #options: KernelGrantsOptions;

  constructor(options: KernelGrantsOptions) {
    this.#options = options;
  }

  /** The exact call a grant is for; `policy` is the gate's version of the policy. */
  subject(call: ToolCall, policy: string): ApprovalSubject {
    return {
      principal: this.#options.principal(),
      server: call.server_name,
      tool: call.tool_name,
      argsDigest: argsDigest(call.tool_args),
      policyVersion: `ipybox:${policy}`,
    };
  }

  /** An approver said yes: a grant for exactly this call, taken now. Its token on success. */
  async approved(subject: ApprovalSubject, by: string): Promise<GrantTaking & { token?: string }> {
    const { token } = await this.#options.book.issue(subject, by, this.#options.ttlMs ?? 60_000);
    const taken = await this.take(token, subject);
    return taken.ok ? { ...taken, token } : taken;
  }

  /** Takes the grant `token` for the call `subject`, once; every outcome is recorded. */
  async take(token: string, subject: ApprovalSubject): Promise<GrantTaking> {
    const taken = await this.#options.book.take(token, subject);
    this.#options.audit?.record({
      kind: 'approval',
      decision: taken.ok ? 'granted' : 'refused',
      principal: subject.principal,
      tool: subject.tool,
      plugin: subject.server,
      args_sha256: subject.argsDigest,
      rule: subject.policyVersion,
      by: taken.ok ? taken.grant.by : `grant:${taken.reason}`,
      ...(taken.ok && { grant: taken.grant.id }),
    });
    return taken;
  }
}
