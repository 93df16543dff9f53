/**
 * Which gate state a call belongs to. Over Streamable HTTP each MCP session has its own; a
 * stateless HTTP request falls back to its bearer token (so two users never share an unlock);
 * stdio — one client per process — has one shared slot.
 *
 * @module
 */
import { createHash } from 'node:crypto';

/** The parts of the SDK's `RequestHandlerExtra` the gate reads. */
export interface GateCallContext {
  sessionId?: string;
  authInfo?: { token?: string };
}

export const SHARED_SESSION = 'shared';

export function sessionKeyOf(ctx: GateCallContext | undefined): string {
  if (typeof ctx?.sessionId === 'string' && ctx.sessionId !== '') return `session:${ctx.sessionId}`;
  const token = ctx?.authInfo?.token;
  if (typeof token === 'string' && token !== '') {
    return `token:${createHash('sha256').update(token).digest('hex')}`;
  }
  return SHARED_SESSION;
}

/**
 * The handler context among a tool handler's arguments: the SDK calls `(args, extra)` for tools
 * with an input schema and `(extra)` for tools without, so it is the last argument that looks
 * like one (it always carries an abort `signal` and a `requestId`).
 */
export function findCallContext(args: readonly unknown[]): GateCallContext | undefined {
  for (let i = args.length - 1; i >= 0; i--) {
    const a = args[i];
    if (a !== null && typeof a === 'object' && 'signal' in a && 'requestId' in a) {
      return a as GateCallContext;
    }
  }
  return undefined;
}
