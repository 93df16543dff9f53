/**
 * Whose gate state a call belongs to. An unlock belongs to the caller who presented the code:
 *
 * - an authenticated caller: the OAuth principal (`principalKeyOf`: subject, else username, else
 *   client id), else the token;
 * - a 2025 HTTP or SSE client: its MCP session;
 * - a stdio client (either era): its connection;
 * - a 2026 HTTP request without authentication has no lasting identity: `undefined`. It can use
 *   gated tools only with an unlock handle that `gate_unlock` mints for it (see `handles.ts`).
 *
 * @module
 */
import { principalKeyOf } from '../auth/principal.ts';
import { nodeCrypto } from '../lazy.ts';

/** The parts of a tool handler's context the gate reads. */
export interface GateCallContext {
  sessionId?: string;
  /** Set by the server for sessions that outlive one request (stdio, 2025 HTTP, SSE). */
  connectionId?: string;
  authInfo?: { token?: string; clientId?: string; extra?: Record<string, unknown> };
  /** An unlock handle the caller passed as the reserved `gate_handle` argument. */
  gateHandle?: string;
  /** SDK v2's place for the authentication (an `McpServer` handler's context). */
  http?: { authInfo?: GateCallContext['authInfo'] };
}

function hash(value: string): string {
  return nodeCrypto().createHash('sha256').update(value).digest('hex').slice(0, 32);
}

/** The caller's key, or `undefined` for a caller with no identity beyond this request. */
export function callerKeyOf(ctx: GateCallContext | undefined): string | undefined {
  const auth = ctx?.authInfo ?? ctx?.http?.authInfo;
  if (auth) {
    const principal = principalKeyOf(auth);
    if (principal !== undefined) return `principal:${hash(principal)}`;
    if (typeof auth.token === 'string' && auth.token !== '') return `token:${hash(auth.token)}`;
  }
  if (typeof ctx?.sessionId === 'string' && ctx.sessionId !== '') return `session:${ctx.sessionId}`;
  if (typeof ctx?.connectionId === 'string' && ctx.connectionId !== '')
    return `connection:${ctx.connectionId}`;
  return undefined;
}

/**
 * The handler context among a tool handler's arguments: handlers get `(args, ctx)` for tools
 * with an input schema and `(ctx)` for tools without, so it is the last argument that looks
 * like one: the framework's context carries an abort `signal` and a `requestId`, a bare SDK v2
 * `McpServer` context its `mcpReq`.
 */
export function findCallContext(args: readonly unknown[]): GateCallContext | undefined {
  for (let i = args.length - 1; i >= 0; i--) {
    const a = args[i];
    if (a === null || typeof a !== 'object') continue;
    if (('signal' in a && 'requestId' in a) || 'mcpReq' in a) {
      return a as GateCallContext;
    }
  }
  return undefined;
}
