/**
 * What the request handlers of a session need from it, as one small interface: the handler
 * modules register against this rather than importing `session.ts`, which imports them.
 *
 * @module
 */
import type { InputRequiredResult, Server, ServerContext } from '@modelcontextprotocol/server';
import type { AccessControl } from '../../access/access.ts';
import type { Catalog } from '../../catalog/catalog.ts';
import type { ToolCallDispatcher } from '../../catalog/toolCalls.ts';
import type { RequestExtra, ToolContext } from '../../contract/tool.ts';
import type { DirectHandler } from '../directAnswers.ts';
import type { ServerCounters } from '../stats.ts';

/** Wraps a handler so the session counts, traces and contextualises each request it serves. */
export type Counted = <Q, R>(
  handler: (request: Q, extra: RequestExtra) => Promise<R>,
) => (request: Q, ctx: ServerContext) => Promise<R>;

/** The call a {@link WithRounds} runs: a tool call or a prompt, with its arguments. */
export interface RoundsCall {
  method: 'tools/call' | 'prompts/get';
  name: string;
  args: unknown;
}

/**
 * Runs a tool or prompt handler with its context; for a 2026 request an unanswered question
 * becomes `inputRequired` instead of a result (see `withRounds.ts`).
 */
export type WithRounds = <R>(
  extra: RequestExtra,
  call: RoundsCall,
  run: (ctx: ToolContext) => Promise<R>,
) => Promise<{ result: R } | { inputRequired: InputRequiredResult }>;

export interface SessionHost {
  readonly server: Server;
  readonly catalog: Catalog;
  readonly dispatcher: ToolCallDispatcher;
  readonly access: AccessControl;
  readonly counters: ServerCounters;
  readonly counted: Counted;
  readonly withRounds: WithRounds;
  /** The handlers the session also answers itself, past the SDK (directAnswers.ts). */
  readonly direct: Map<string, DirectHandler>;
}
