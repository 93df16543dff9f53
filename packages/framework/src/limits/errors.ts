/**
 * What a client is told when a limit refuses its call: JSON-RPC error {@link LIMIT_EXCEEDED}
 * (-32029, in the range JSON-RPC leaves to implementations; 429's digits), a message naming the
 * limit, whose it is and when to retry, and `data` a program can act on:
 *
 * ```json
 * { "code": -32029,
 *   "message": "rate limit of 60 calls per minute for sub:alice reached; retry in 12 s",
 *   "data": { "limit": "rate", "scope": "principal", "principal": "sub:alice", "max": 60,
 *             "period": "minute", "retryAfterMs": 11500 } }
 * ```
 *
 * @module
 */
import { ProtocolError } from '@modelcontextprotocol/server';
import type { RatePeriod } from './settings.ts';

/** The JSON-RPC error code of a call refused by a limit. */
export const LIMIT_EXCEEDED = -32029;

export type LimitKind = 'rate' | 'daily' | 'concurrent';

/** Which limit refused a call, and when it may be tried again. */
export interface LimitRefusal {
  limit: LimitKind;
  /** `principal` (the per-principal budgets), else the tool rule's `match` (or `plugin:<name>`). */
  scope: string;
  principal: string;
  max: number;
  period?: RatePeriod;
  /** Milliseconds until the call may succeed (for `concurrent`: a hint, when a call may end). */
  retryAfterMs: number;
  /** What the call costs of a per-principal budget, when more than 1. */
  cost?: number;
}

/** `12 s`, `4 min`, `3 h 12 min`: when to retry, rounded up. */
export function retryText(ms: number): string {
  const s = Math.max(1, Math.ceil(ms / 1000));
  if (s < 120) return `${s} s`;
  const min = Math.ceil(s / 60);
  if (min < 120) return `${min} min`;
  return `${Math.floor(min / 60)} h${min % 60 === 0 ? '' : ` ${min % 60} min`}`;
}

/** The sentence a refused caller reads. */
export function refusalMessage(r: LimitRefusal, tool: string): string {
  const on = r.scope === 'principal' ? '' : ` on ${r.scope}`;
  const what =
    r.limit === 'rate'
      ? `rate limit of ${r.max} call${r.max === 1 ? '' : 's'} per ${r.period}${on}`
      : r.limit === 'daily'
        ? `daily quota of ${r.max} call${r.max === 1 ? '' : 's'}${on}`
        : `concurrency limit of ${r.max} running call${r.max === 1 ? '' : 's'}${on}`;
  const cost = r.cost !== undefined ? ` (a call to ${tool} counts as ${r.cost})` : '';
  const when =
    r.limit === 'concurrent'
      ? `retry when one of them has ended`
      : `retry in ${retryText(r.retryAfterMs)}`;
  return `${what} for ${r.principal} reached${cost}; ${when}`;
}

/** The protocol error for a refusal. */
export function limitError(r: LimitRefusal, tool: string): ProtocolError {
  return new ProtocolError(LIMIT_EXCEEDED, refusalMessage(r, tool), { ...r, tool });
}
