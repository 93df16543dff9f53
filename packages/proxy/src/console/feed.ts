/**
 * The console's tool-call feed: one call as the calls page shows it, and the live stream of
 * calls (server-sent events) that the calls and health pages follow.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TappedCall, ToolCallTap } from '@mcpbox/framework';
import { duration } from './html.ts';
import type { CallView } from './pages.ts';
import { SECURITY_HEADERS } from './respond.ts';

/** `abcd1234…`: enough of a session id to tell sessions apart, not to act as one. */
const shortId = (id: string) => (id.length > 8 ? `${id.slice(0, 8)}…` : id);

export function callView(call: TappedCall): CallView {
  // Params too long for the tap are kept as their JSON text, already cut.
  let params = typeof call.params === 'string' ? call.params : (JSON.stringify(call.params) ?? '');
  if (params.length > 400) params = `${params.slice(0, 400)}…`;
  return {
    seq: call.seq,
    time: call.time,
    caller:
      call.principal ?? (call.sessionId === undefined ? '—' : `session ${shortId(call.sessionId)}`),
    tool: call.tool,
    outcome: call.outcome,
    duration: call.durationMs === undefined ? '' : duration(call.durationMs),
    params,
  };
}

/**
 * Server-sent events: every tool call after the one the page has (`?after=<seq>`, or the
 * browser's `Last-Event-ID` when it reconnects), as `event: call`. The kept calls after it are
 * sent first: calls made between the page's rendering and its stream's opening would be
 * missed otherwise (a loaded machine makes that gap long). `ended` runs when the stream closes.
 */
export function streamCalls(
  req: IncomingMessage,
  res: ServerResponse,
  tap: ToolCallTap | undefined,
  ended: () => void,
): void {
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'content-type': 'text/event-stream; charset=utf-8',
    connection: 'keep-alive',
  });
  res.write('retry: 2000\n\n');
  const send = (call: TappedCall) => {
    res.write(`id: ${call.seq}\nevent: call\ndata: ${JSON.stringify(callView(call))}\n\n`);
  };
  const after = seqAfter(req);
  if (after !== undefined) for (const call of tap?.recent() ?? []) if (call.seq > after) send(call);
  // In the same turn as the replay: the tap publishes from a later one, so nothing falls between.
  const stop = tap?.subscribe(send);
  // A comment now and then keeps proxies and the browser from calling the stream dead.
  const ping = setInterval(() => res.write(': ping\n\n'), 15_000);
  ping.unref();
  const end = () => {
    clearInterval(ping);
    stop?.();
    ended();
  };
  req.on('close', end);
  res.on('close', end);
}

/** The last call a feed already has: the reconnecting browser's `Last-Event-ID`, else `?after=`. */
function seqAfter(req: IncomingMessage): number | undefined {
  const header = req.headers['last-event-id'];
  const text =
    typeof header === 'string'
      ? header
      : new URL(req.url ?? '/', 'http://console').searchParams.get('after');
  if (text === null || !/^\d{1,15}$/.test(text)) return undefined;
  return Number(text);
}
