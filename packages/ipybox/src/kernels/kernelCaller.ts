/**
 * Whose kernel a call reaches when it names none, and who owns the kernels it opens.
 *
 * - `owner` is the framework's caller key (`callerKeyOf`): the OAuth principal, else the 2025
 *   session, else the stdio connection; `undefined` for an unauthenticated 2026 HTTP request,
 *   which has no identity beyond itself. A kernel belongs to the owner that opened it; a handle
 *   of another owner is refused. A kernel opened with no owner is reachable by its handle alone.
 * - `home` keys the caller's default kernel: a 2025 session's own (even when authenticated:
 *   sessions keep one kernel each, closed with the session), else the stdio connection's, else
 *   the principal's. An unauthenticated 2026 HTTP request has none: without a handle it gets a
 *   new kernel, never another caller's.
 *
 * @module
 */
import { callerKeyOf, type GateCallContext } from '@mcpbox/framework';

export interface KernelCaller {
  owner: string | undefined;
  home: string | undefined;
  /**
   * Whether the default kernel is reaped when idle. Not a stdio connection's: its client is
   * known to be there as long as the process runs, and the kernel ends with the connection.
   */
  reapHomeWhenIdle: boolean;
}

export function kernelCallerOf(ctx: GateCallContext): KernelCaller {
  const owner = callerKeyOf(ctx);
  const { sessionId, connectionId } = ctx;
  const session = callerKeyOf({ sessionId });
  const connection = callerKeyOf({ connectionId });
  if (session === undefined && connection !== undefined) {
    return { owner, home: connection, reapHomeWhenIdle: false };
  }
  return { owner, home: session ?? owner, reapHomeWhenIdle: true };
}

/** The keys state of a session or connection that ended was held under. */
export function keysOfClosed(closed: { connectionId: string; sessionId?: string }): string[] {
  const { connectionId, sessionId } = closed;
  return [callerKeyOf({ connectionId }), callerKeyOf({ sessionId })].filter(
    (key): key is string => key !== undefined,
  );
}
