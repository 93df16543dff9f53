/**
 * The approval of one call, as the dispatcher asks for it when a policy `approve` rule holds:
 * the same for every route that reaches `ToolCallDispatcher.call` (client calls, `proxy__run`,
 * kernel code, code mode, mirrored servers, any replica).
 *
 * In order: a grant token the request presents in `_meta["io.mcpbox/grant"]` is taken (good:
 * the call runs; bad: refused, nothing runs, no one is asked); else the rule's approver is asked —
 * the caller's client by elicitation (2025 request, 2026 `input_required`; the question is bound
 * to the call's digest, so an answer to another call answers nothing here), or an operator at the
 * {@link OperatorDesk}. An approval becomes a grant for exactly this call, taken at once, so every
 * approval goes through the one grant book. Each step goes to the audit trail.
 *
 * @module
 */
import type { ElicitRequestFormParams } from '@modelcontextprotocol/server';
import type { ApprovalNeed } from '../access/policy.ts';
import { argsDigest } from '../audit/record.ts';
import type { AuditTrail } from '../audit/trail.ts';
import { ANONYMOUS_PRINCIPAL } from '../auth/principal.ts';
import type { ToolContext } from '../contract/tool.ts';
import { InputNeeded } from '../session/inputRounds.ts';
import { Redactor } from '../toollog/redact.ts';
import type { OperatorDesk } from './desk.ts';
import { GRANT_META_KEY, type GrantBook } from './grants.ts';
import type { ApprovalSubject, Grant } from './types.ts';

/** One call needing approval. */
export interface ApprovalCall {
  readonly need: ApprovalNeed;
  readonly tool: string;
  readonly plugin: string;
  readonly args: Record<string, unknown> | undefined;
  readonly ctx: ToolContext;
  readonly via?: 'code';
}

export type ApprovalOutcome =
  | { readonly ok: true; readonly grant: Grant }
  | { readonly ok: false; readonly message: string };

/** Longest argument text shown to whoever approves. */
const MAX_SHOWN = 200;

export class CallApprovals {
  readonly #book: GrantBook;
  readonly #desk: OperatorDesk;
  readonly #audit: AuditTrail;
  /** Requests whose presented grant was tried: it is for their first call needing approval. */
  readonly #presented = new WeakSet<ToolContext>();

  constructor(book: GrantBook, desk: OperatorDesk, audit: AuditTrail) {
    this.#book = book;
    this.#desk = desk;
    this.#audit = audit;
  }

  /** Whether `call` may run: with the grant that approved it, or why not. */
  async approve(call: ApprovalCall): Promise<ApprovalOutcome> {
    const { need, ctx } = call;
    const subject: ApprovalSubject = {
      principal: (ctx.principal ?? ANONYMOUS_PRINCIPAL).id,
      server: call.plugin,
      tool: call.tool,
      argsDigest: argsDigest(call.args),
      policyVersion: need.policyVersion,
    };
    const presented = this.#presentedToken(ctx);
    if (presented !== undefined) return this.#take(call, presented, subject);
    return need.approver === 'client'
      ? this.#askClient(call, subject)
      : this.#askOperator(call, subject);
  }

  /** The request's grant token, the first time a call of it needs approval. */
  #presentedToken(ctx: ToolContext): string | undefined {
    const token = ctx._meta?.[GRANT_META_KEY];
    if (token === undefined || this.#presented.has(ctx)) return undefined;
    this.#presented.add(ctx);
    return typeof token === 'string' ? token : '';
  }

  async #take(call: ApprovalCall, token: string, subject: ApprovalSubject) {
    const taken = await this.#book.take(token, subject);
    if (taken.ok) {
      this.#record(call, subject, 'granted', taken.grant.by, taken.grant.id);
      return taken;
    }
    this.#record(call, subject, 'refused', `grant:${taken.reason}`);
    return { ok: false as const, message: `${this.#needs(call)}, and ${taken.message}` };
  }

  async #askClient(call: ApprovalCall, subject: ApprovalSubject): Promise<ApprovalOutcome> {
    const { ctx } = call;
    if (!canElicit(ctx)) {
      this.#record(call, subject, 'refused', 'client:cannot-ask');
      return {
        ok: false,
        message:
          `${this.#needs(call)}, and this client cannot be asked (it declared no form ` +
          'elicitation). Use a client that supports elicitation, present a grant in ' +
          `_meta["${GRANT_META_KEY}"], or have the rule name approver: operator.`,
      };
    }
    // A 2026 request runs again with the answer: asked is recorded when the question goes out.
    if (ctx.inputMode === 'live') this.#record(call, subject, 'asked');
    let action: string;
    try {
      const answer = await ctx.elicit(this.#question(call, subject), {
        key: `approve-${subject.argsDigest.slice(0, 16)}`,
      });
      action = answer.action;
    } catch (error) {
      if (error instanceof InputNeeded) this.#record(call, subject, 'asked');
      throw error;
    }
    const by = `client:${subject.principal}`;
    if (action !== 'accept') {
      this.#record(call, subject, 'refused', by);
      return { ok: false, message: `${this.#needs(call)}, and the user declined (${action})` };
    }
    const { token } = await this.#book.issue(subject, by, call.need.ttlMs);
    return this.#take(call, token, subject);
  }

  async #askOperator(call: ApprovalCall, subject: ApprovalSubject): Promise<ApprovalOutcome> {
    this.#record(call, subject, 'asked');
    const waited = await this.#desk.wait(
      {
        subject,
        args: this.#shown(call),
        rule: call.need.rule,
        via: call.via ?? 'call',
      },
      call.need.ttlMs,
      call.ctx.signal,
    );
    if (waited.ok) return this.#take(call, waited.token, subject);
    this.#record(call, subject, 'refused', waited.by ?? `operator:${waited.reason}`);
    const why =
      waited.reason === 'refused'
        ? `an operator (${waited.by}) refused it`
        : waited.reason === 'expired'
          ? `no operator answered within ${Math.round(call.need.ttlMs / 1000)} s`
          : 'the call was cancelled while waiting';
    return { ok: false, message: `${this.#needs(call)}, and ${why}` };
  }

  #question(call: ApprovalCall, subject: ApprovalSubject): ElicitRequestFormParams {
    return {
      mode: 'form',
      message:
        `Approve this call of ${call.tool} (policy rule "${call.need.rule}")?\n` +
        `Arguments: ${JSON.stringify(this.#shown(call))}\n` +
        `Argument digest: ${subject.argsDigest}`,
      requestedSchema: { type: 'object', properties: {} },
    };
  }

  /** The arguments as whoever approves sees them: secrets redacted, long texts cut. */
  #shown(call: ApprovalCall): Record<string, unknown> {
    return Redactor.default.params(call.tool, call.args ?? {}, MAX_SHOWN) as Record<
      string,
      unknown
    >;
  }

  #needs(call: ApprovalCall): string {
    return `Tool ${call.tool} needs an approval of this call (policy rule "${call.need.rule}", approver: ${call.need.approver})`;
  }

  #record(
    call: ApprovalCall,
    subject: ApprovalSubject,
    decision: 'asked' | 'granted' | 'refused',
    by?: string,
    grant?: string,
  ): void {
    this.#audit.record({
      kind: 'approval',
      decision,
      principal: subject.principal,
      tool: call.tool,
      plugin: call.plugin,
      view: call.ctx.view,
      args_sha256: subject.argsDigest,
      rule: call.need.rule,
      ...(by !== undefined ? { by } : {}),
      ...(grant !== undefined ? { grant } : {}),
    });
  }
}

/** Whether the client declared form elicitation (an empty `elicitation: {}` means form). */
function canElicit(ctx: ToolContext): boolean {
  const elicitation = ctx.clientCapabilities?.elicitation as
    | { form?: object; url?: object }
    | undefined;
  if (!elicitation) return false;
  return Boolean(elicitation.form) || !elicitation.url;
}
