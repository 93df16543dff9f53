/**
 * How deeply a client's JSON message may nest. `JSON.parse` reads any depth, but what handles a
 * message afterwards — the SDK's schema checks, `JSON.stringify`, our own walks — recurses, and
 * a body nested a few thousand levels deep overflows the stack (a `RangeError` answered as an
 * internal error). Such a message is refused where it enters, as an Invalid Request (-32600).
 *
 * @module
 */
import type { ServerResponse } from 'node:http';
import type { ServerCounters } from '../session/stats.ts';

/** Levels of arrays and objects a message may nest; real MCP messages stay far below it. */
export const MAX_JSON_DEPTH = 256;

/** What is wrong with a too-deep message, in the error it gets on every transport. */
export const TOO_DEEP = `the message nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep; send a flatter message`;

/**
 * Whether a parsed JSON value nests arrays and objects more than `max` levels deep (a scalar
 * is 0 levels, `[]` one). Stops as soon as it knows, so the walk itself never goes deeper.
 */
export function nestsDeeperThan(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (max <= 0) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (nestsDeeperThan(item, max - 1)) return true;
    return false;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) if (nestsDeeperThan(record[key], max - 1)) return true;
  return false;
}

/** The id of a message whose top level is a request or response, else null (JSON-RPC 2.0 §5). */
export function echoableId(message: unknown): string | number | null {
  const id = (message as { id?: unknown } | null)?.id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

/**
 * Answers an HTTP body nested too deep with 400 and the Invalid Request error, and returns
 * false; returns true for any other body.
 */
export function refuseTooDeep(body: unknown, res: ServerResponse, counters: ServerCounters) {
  if (!nestsDeeperThan(body)) return true;
  counters.errors += 1;
  const error = { code: -32600, message: `Invalid Request: ${TOO_DEEP}` };
  res
    .writeHead(400, { 'Content-Type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', id: echoableId(body), error }));
  return false;
}
