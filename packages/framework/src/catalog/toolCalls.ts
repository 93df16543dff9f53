/**
 * Runs tool calls against the catalog, through the interceptors other parts hang on every call
 * (pre-call validation, tool-call logs, metrics).
 *
 * Failure is data: an unknown or disabled tool is a JSON-RPC error (`InvalidParams`, the SDK's
 * wording); invalid arguments, a throwing handler and an output that breaks its schema are
 * `isError` results carrying a readable message. An interceptor may throw an `McpError` to answer
 * with a protocol error; anything else it throws becomes an `isError` result too.
 *
 * @module
 */

import type { CallToolResult } from '@modelcontextprotocol/server';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { AccessControl } from '../access/access.ts';
import type { ApprovalNeed } from '../access/policy.ts';
import type { CallApprovals } from '../approvals/callApproval.ts';
import { GRANT_META_KEY } from '../approvals/grants.ts';
import type { Grant } from '../approvals/types.ts';
import { ANONYMOUS_PRINCIPAL } from '../auth/principal.ts';
import type { ToolContext, ToolReturn } from '../contract/tool.ts';
import { errorMessage } from '../errors.ts';
import { limitError } from '../limits/errors.ts';
import type { Limiter } from '../limits/limiter.ts';
import type { ResultKeeper } from '../results/keeper.ts';
import { InputNeeded } from '../session/inputRounds.ts';
import type { Catalog } from './catalog.ts';
import type { ToolEntry } from './types.ts';

/** One tool call as interceptors see it; they may replace `args` before calling `next()`. */
export interface ToolCall {
  readonly tool: string;
  readonly plugin: string;
  args: Record<string, unknown> | undefined;
  readonly ctx: ToolContext;
  /** Set when the call came from code (`CatalogView.callTool(..., { via: 'code' })`). */
  readonly via?: 'code';
  /**
   * Why access control (policy, naming the rule) or a limit refused the call, when one did:
   * interceptors see the call and its refusal (to log and count it) but must not run it, ask a
   * gate or validator about it; the answer is this text as an `isError` result (policy) or the
   * limit's JSON-RPC error (`LIMIT_EXCEEDED`, thrown by `next()`).
   */
  readonly refusal?: string;
  /**
   * The policy rule that decided the call's admission, allowed or refused (a rule's name, or
   * `default`), when a policy is configured: for the audit trail.
   */
  readonly policyRule?: string;
}

export type ToolCallInterceptor = (
  call: ToolCall,
  next: () => Promise<CallToolResult>,
) => Promise<CallToolResult>;

/** An `isError` result with one text block, as the SDK's `createToolError` builds it. */
export function toolError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** A string becomes one text block; a result passes through; anything else is shown as JSON. */
export function toToolResult(value: ToolReturn | unknown): CallToolResult {
  if (typeof value === 'string') return { content: [{ type: 'text', text: value }] };
  // A task handle (ctx.runAsTask) passes through as it is.
  if ((value as { resultType?: unknown } | null)?.resultType === 'task') {
    return value as CallToolResult;
  }
  if (
    value !== null &&
    typeof value === 'object' &&
    Array.isArray((value as CallToolResult).content)
  ) {
    return value as CallToolResult;
  }
  if (value === undefined || value === null) return { content: [] };
  return { content: [{ type: 'text', text: JSON.stringify(value) }] };
}

const PASSED_THROUGH = new Set<number>([
  ProtocolErrorCode.UrlElicitationRequired,
  ProtocolErrorCode.MissingRequiredClientCapability,
]);

/**
 * Validates arguments, runs the handler, checks structured output. Never throws, except the
 * protocol errors in {@link PASSED_THROUGH}.
 */
export async function runTool(
  entry: ToolEntry,
  rawArgs: Record<string, unknown> | undefined,
  ctx: ToolContext,
): Promise<CallToolResult> {
  let result: CallToolResult;
  try {
    if (entry.input) {
      const validation = entry.input.validate(rawArgs ?? {});
      const checked = validation instanceof Promise ? await validation : validation;
      if (!checked.ok) {
        return toolError(
          `Input validation error: Invalid arguments for tool ${entry.name}: ${checked.message}`,
        );
      }
      result = toToolResult(await entry.handler(checked.value, ctx));
    } else {
      result = toToolResult(await entry.handler(ctx));
    }
  } catch (error) {
    // Protocol errors the client acts on stay protocol errors: the SDK's URL elicitation, and a
    // client capability a 2026 request did not declare (-32021, thrown by ctx.elicit/ctx.sample).
    if (error instanceof ProtocolError && PASSED_THROUGH.has(error.code)) throw error;
    return toolError(errorMessage(error));
  }
  if (
    entry.output &&
    !result.isError &&
    (result as { resultType?: unknown }).resultType !== 'task'
  ) {
    if (result.structuredContent === undefined) {
      return toolError(
        `Output validation error: Tool ${entry.name} has an output schema but no structured content was provided`,
      );
    }
    const checked = await entry.output.validate(result.structuredContent);
    if (!checked.ok) {
      return toolError(
        `Output validation error: Invalid structured content for tool ${entry.name}: ${checked.message}`,
      );
    }
  }
  return result;
}

/** The parts a dispatcher asks of every call, besides the catalog. */
export interface DispatcherParts {
  /** Views and policy, asked before every call of every route. */
  access?: AccessControl;
  /** The caller's budgets, spent by every call access admits. */
  limiter?: Limiter;
  /** Approvals of calls a policy `approve` rule holds for; without, such calls are refused. */
  approvals?: CallApprovals;
  /** Stores results too large for the model and answers with a preview (`result_preview`). */
  results?: ResultKeeper;
}

/** What the limiter said of a call: the error refusing it, or the slot to give back. */
interface LimitStanding {
  error?: ProtocolError;
  release?: () => void;
}

export class ToolCallDispatcher {
  readonly #catalog: Catalog;
  readonly #access: AccessControl | undefined;
  readonly #limiter: Limiter | undefined;
  readonly #approvals: CallApprovals | undefined;
  readonly #results: ResultKeeper | undefined;
  /** Contexts with a limited call running: a call made with one is nested (`proxy__run`). */
  readonly #running = new WeakSet<ToolContext>();
  #interceptors: ToolCallInterceptor[] = [];

  constructor(catalog: Catalog, parts: DispatcherParts = {}) {
    this.#catalog = catalog;
    this.#access = parts.access;
    this.#limiter = parts.limiter;
    this.#approvals = parts.approvals;
    this.#results = parts.results;
  }

  /** The store of results too large for the model, when `result_preview` is on. */
  get results(): ResultKeeper | undefined {
    return this.#results;
  }

  /** Wraps every later tool call; interceptors run in the order added. Returns a remover. */
  addInterceptor(interceptor: ToolCallInterceptor): () => void {
    this.#interceptors = [...this.#interceptors, interceptor];
    return () => {
      this.#interceptors = this.#interceptors.filter((i) => i !== interceptor);
    };
  }

  /** Calls a catalog tool by name. Throws `McpError` only for protocol errors. */
  async call(
    name: string,
    args: Record<string, unknown> | undefined,
    ctx: ToolContext,
    options?: { via?: 'code' },
  ): Promise<CallToolResult> {
    const entry = this.#catalog.getTool(name);
    if (!entry) throw this.#unknown(name, ctx);
    if (!entry.enabled)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${name} disabled`);
    let refusal: string | undefined;
    let policyRule: string | undefined;
    let approval: ApprovalNeed | undefined;
    const access = this.#access;
    const principal = ctx.principal ?? ANONYMOUS_PRINCIPAL;
    if (access?.decides(ctx.view)) {
      const admission = access.admit(principal, ctx.view, entry, args);
      // Not in the caller's view: the same answer as a tool that does not exist.
      if (!admission.admitted && admission.notInView) {
        access.seen.call(principal, true);
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${name} not found`);
      }
      policyRule = admission.rule;
      if (admission.admitted) {
        args = admission.args;
        approval = admission.approval;
      } else refusal = `Tool ${name} is not allowed for ${principal.id}: ${admission.reason}`;
    }
    // Only a call access admits spends budgets; a refused one reaches the interceptors (logged,
    // counted 'rejected') and answers the limit's JSON-RPC error.
    const limit =
      this.#limiter && refusal === undefined
        ? await this.#limit(this.#limiter, entry, ctx, options?.via)
        : undefined;
    if (limit?.error) refusal = limit.error.message;
    try {
      // Asked after the limiter: asking a human spends the caller's budget like a call.
      let grant: Grant | undefined;
      if (approval && refusal === undefined) {
        const approved = await this.#approve(approval, entry, args, ctx, options?.via);
        if (approved.ok) grant = approved.grant;
        else refusal = approved.message;
      }
      access?.seen.call(principal, refusal !== undefined);
      const decided = { refusal, limit, policyRule };
      const whole = await this.#dispatch(entry, args, ctx, options?.via, decided);
      // Code (ipybox kernels, code mode) works on the whole result; only what goes back to a
      // client (and its model) may be stored and previewed. Decided here, for every route.
      const result =
        this.#results && options?.via !== 'code'
          ? await this.#results.keep(whole, {
              tool: entry.name,
              plugin: entry.plugin,
              hasOutputSchema: entry.definition.outputSchema !== undefined,
              ctx,
            })
          : whole;
      // The result names the grant it ran on (a copy: results may be shared).
      return grant ? { ...result, _meta: { ...result._meta, [GRANT_META_KEY]: grant.id } } : result;
    } finally {
      if (limit?.release) {
        this.#running.delete(ctx);
        limit.release();
      }
    }
  }

  /** The approval `need` asks of this call; fails closed when it cannot be had. */
  async #approve(
    need: ApprovalNeed,
    entry: ToolEntry,
    args: Record<string, unknown> | undefined,
    ctx: ToolContext,
    via: 'code' | undefined,
  ): Promise<{ ok: true; grant: Grant } | { ok: false; message: string }> {
    const denied = (why: string) => ({
      ok: false as const,
      message: `Tool ${entry.name} needs an approval (policy rule "${need.rule}"), ${why}`,
    });
    if (!this.#approvals) return denied('and approvals are not available on this server');
    try {
      return await this.#approvals.approve({
        need,
        tool: entry.name,
        plugin: entry.plugin,
        args,
        ctx,
        via,
      });
    } catch (error) {
      // A question for the client (2026 round) or a protocol error goes on as it is.
      if (error instanceof InputNeeded || error instanceof ProtocolError) throw error;
      return denied(`and it could not be decided (${errorMessage(error)}); try again`);
    }
  }

  /**
   * The error for a name the catalog does not list: a tool the pin book holds back is named as
   * quarantined (to a caller whose view has it), anything else is not found.
   */
  #unknown(name: string, ctx: ToolContext): ProtocolError {
    const held = this.#catalog.heldTool(name);
    const principal = ctx.principal ?? ANONYMOUS_PRINCIPAL;
    const hidden =
      held !== undefined && this.#access?.mayList(principal, ctx.view, held.entry) === false;
    return new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      held && !hidden ? held.reason : `Tool ${name} not found`,
    );
  }

  async #limit(
    limiter: Limiter,
    entry: ToolEntry,
    ctx: ToolContext,
    via: 'code' | undefined,
  ): Promise<LimitStanding> {
    const principal = (ctx.principal ?? ANONYMOUS_PRINCIPAL).id;
    // Kernel code's calls run inside a cell's call, which holds the caller's slot.
    const nested = via === 'code' || this.#running.has(ctx);
    const decision = await limiter.admit({
      principal,
      tool: entry.name,
      plugin: entry.plugin,
      nested,
    });
    if (!decision.admitted) return { error: limitError(decision.refusal, entry.name) };
    if (nested) return {};
    this.#running.add(ctx);
    return { release: decision.release };
  }

  /** Through the interceptors (if any) to the tool, or to the refusal. */
  async #dispatch(
    entry: ToolEntry,
    args: Record<string, unknown> | undefined,
    ctx: ToolContext,
    via: 'code' | undefined,
    decided: { refusal?: string; limit?: LimitStanding; policyRule?: string },
  ): Promise<CallToolResult> {
    const { refusal, limit } = decided;
    const refused = (): Promise<CallToolResult> =>
      limit?.error ? Promise.reject(limit.error) : Promise.resolve(toolError(refusal!));
    const interceptors = this.#interceptors;
    if (interceptors.length === 0) {
      return refusal === undefined ? runTool(entry, args, ctx) : refused();
    }
    const call: ToolCall = {
      tool: entry.name,
      plugin: entry.plugin,
      args,
      ctx,
      via,
      refusal: decided.refusal,
      policyRule: decided.policyRule,
    };
    const dispatch = (i: number): Promise<CallToolResult> =>
      i < interceptors.length
        ? interceptors[i](call, () => dispatch(i + 1))
        : refusal === undefined
          ? runTool(entry, call.args, ctx)
          : refused();
    try {
      return await dispatch(0);
    } catch (error) {
      if (error instanceof ProtocolError) throw error;
      return toolError(errorMessage(error));
    }
  }
}
