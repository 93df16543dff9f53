/**
 * Bounds on 2026 `subscriptions/listen` streams, which a server holds open for as long as the
 * client likes, with the request that opened them: one request may name at most
 * {@link MAX_LISTEN_URIS} resource URIs in {@link MAX_LISTEN_BYTES} of JSON, and at most
 * `maxListens` streams are open at once, `maxListensPerCaller` of them per caller
 * (callerSlots.ts). Without them one client could hold 1024 listens of ~125,000 URIs each and
 * run the server out of memory. With the defaults the listens of all clients together hold at
 * most 512 × 32 KiB of requests.
 *
 * A refused listen gets a JSON-RPC error for its id, in band (as the SDK answers its own listen
 * refusals): -32602 for a filter too large, -32000 past a cap.
 *
 * @module
 */
import type { ServerResponse } from 'node:http';
import type { ServerCounters } from '../session/stats.ts';
import { CallerSlots, callerOf, type SlotRefusal } from './callerSlots.ts';
import type { McpRequest } from './mcpHttpRequest.ts';

/** Resource URIs one `subscriptions/listen` may name. */
export const MAX_LISTEN_URIS = 256;
/** Bytes of JSON one `subscriptions/listen` request may take. */
export const MAX_LISTEN_BYTES = 32 * 1024;
/** Default cap on open listen streams over all callers. */
export const DEFAULT_MAX_LISTENS = 512;
/** Default cap on open listen streams per caller. */
export const DEFAULT_MAX_LISTENS_PER_CALLER = 32;

export interface ListenLimits {
  /** Open listen streams at most (HTTP, all callers); 0 means no cap. Default 512. */
  maxListens?: number;
  /** Open listen streams per caller (principal, else address; over stdio the connection); 0 no cap. Default 32. */
  maxListensPerCaller?: number;
}

type Id = string | number;

/** A cap where 0 means none, as the SDK's `maxSubscriptions` wants it. */
export function sdkCap(cap: number): number {
  return cap > 0 ? cap : Number.MAX_SAFE_INTEGER;
}

interface ListenRequest {
  id: Id;
  method: 'subscriptions/listen';
  params?: { notifications?: { resourceSubscriptions?: unknown } };
}

export function isListenRequest(message: unknown): message is ListenRequest {
  const m = message as { method?: unknown; id?: unknown } | null;
  return (
    typeof m === 'object' &&
    m !== null &&
    m.method === 'subscriptions/listen' &&
    (typeof m.id === 'string' || typeof m.id === 'number')
  );
}

/** Why a listen request is too large to hold open, or undefined when it is not. */
export function listenSizeProblem(message: ListenRequest): string | undefined {
  const uris = message.params?.notifications?.resourceSubscriptions;
  if (Array.isArray(uris) && uris.length > MAX_LISTEN_URIS) {
    return (
      `Invalid params: resourceSubscriptions names ${uris.length} URIs, more than the ` +
      `${MAX_LISTEN_URIS} one subscriptions/listen may name; subscribe to fewer resources`
    );
  }
  // Bounded nesting (jsonDepth.ts) is checked before: this cannot overflow the stack.
  const bytes = Buffer.byteLength(JSON.stringify(message));
  if (bytes > MAX_LISTEN_BYTES) {
    return (
      `Invalid params: this subscriptions/listen request is ${bytes} bytes, more than the ` +
      `${MAX_LISTEN_BYTES} a listen may hold open; subscribe to fewer resources`
    );
  }
  return undefined;
}

/** The message for a listen refused at a cap. */
export function listenCapMessage(refusal: SlotRefusal, cap: number): string {
  const whose =
    refusal === 'caller'
      ? `for this client (${cap}, the server's max_listens_per_caller)`
      : `on this server (${cap}, the server's max_listens)`;
  return (
    `Too many open subscriptions/listen streams ${whose}; ` +
    'close a listen you no longer need, or retry later'
  );
}

/** Answers one request of the endpoint itself and returns false, or returns true to go on. */
export type ListenAdmission = (req: McpRequest, res: ServerResponse) => boolean;

/**
 * The HTTP endpoint's listen check: a `subscriptions/listen` too large or past a cap is answered
 * here; an admitted one holds a slot until its stream closes. Other requests pass untouched.
 */
export function listenAdmission(limits: ListenLimits, counters: ServerCounters): ListenAdmission {
  const slots = new CallerSlots(
    limits.maxListens ?? DEFAULT_MAX_LISTENS,
    limits.maxListensPerCaller ?? DEFAULT_MAX_LISTENS_PER_CALLER,
  );
  return function admitListen(req, res) {
    const body = req.body;
    if (!isListenRequest(body)) return true;
    const problem = listenSizeProblem(body);
    if (problem) return refuse(res, counters, body.id, -32602, problem);
    const slot = slots.take(callerOf(req));
    if (typeof slot === 'string') {
      const cap = slot === 'caller' ? slots.maxPerCaller : slots.max;
      return refuse(res, counters, body.id, -32000, listenCapMessage(slot, cap));
    }
    res.once('close', slot);
    return true;
  };
}

function refuse(
  res: ServerResponse,
  counters: ServerCounters,
  id: Id,
  code: number,
  message: string,
): false {
  counters.errors += 1;
  res
    .writeHead(200, { 'Content-Type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }));
  return false;
}
