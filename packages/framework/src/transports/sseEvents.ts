/**
 * Server-sent events as the calls answered past the SDK send them (directHttp.ts,
 * sessionHttpTransport.ts), framed and headed as the SDK's transports frame and head theirs.
 *
 * @module
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/server';

/** The headers of an event-stream answer. */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/** One event carrying `message`, with its id when it is kept for resumption. */
export const sseEvent = (message: JSONRPCMessage, id?: string) =>
  `event: message\n${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(message)}\n\n`;
