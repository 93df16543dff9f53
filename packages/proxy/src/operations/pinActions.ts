/**
 * What the pin operations (`pinOperations.ts`) do with the server's pin book (`server.pins`):
 * list, diff, approve, reject — with the refusals an operator can act on: a server nobody knows
 * (404), nothing waiting where an approval or rejection was asked (409). The REST API, the CLI,
 * the `proxy__pins*` tools and the console's Pins page all come through here.
 *
 * @module
 */
import {
  McpboxError,
  type PinBoard,
  type PinDiff,
  type PinStatus,
  type PinTarget,
} from '@mcpbox/framework';

/** A refusal with the REST status that says why; the message says what to do. */
export interface PinRefusal {
  ok: false;
  status: 400 | 404 | 409;
  error: string;
}

export type PinsAnswer = { ok: true; pins: PinStatus[] } | PinRefusal;
export type PinDiffsAnswer = { ok: true; diffs: PinDiff[] } | PinRefusal;

export type PinDecision = 'approve' | 'reject';
/** What an approval or rejection changed: the server's definitions it was about, now. */
export type PinDecided = { ok: true; server: string; pins: PinStatus[] };

/** The pin book and which servers exist besides those with pins (loaded ones, pin: off ones). */
export interface PinDesk {
  board: PinBoard;
  isLoaded(server: string): boolean;
}

const described = (target: Partial<PinTarget>) =>
  `${target.kind ?? 'definition'} '${target.name}' of '${target.server}'`;

/** 404 for a server neither loaded nor pinned; undefined when there is one (or none was named). */
function unknownServer(desk: PinDesk, server: string | undefined): PinRefusal | undefined {
  if (server === undefined || desk.isLoaded(server) || desk.board.list(server).length > 0) {
    return undefined;
  }
  return {
    ok: false,
    status: 404,
    error: `no server or plugin '${server}' is loaded or has pins: check the name (pins list shows every server with pins)`,
  };
}

export function listPins(desk: PinDesk, server: string | undefined): PinsAnswer {
  return unknownServer(desk, server) ?? { ok: true, pins: desk.board.list(server) };
}

export function diffPins(desk: PinDesk, target: Partial<PinTarget>): PinDiffsAnswer {
  return unknownServer(desk, target.server) ?? { ok: true, diffs: desk.board.diff(target) };
}

function nothingWaits(decision: PinDecision, target: PinTarget): PinRefusal {
  const what = target.name === undefined ? `nothing of '${target.server}'` : described(target);
  const state = decision === 'approve' ? 'is quarantined or rejected' : 'is quarantined';
  return {
    ok: false,
    status: 409,
    error: `${what} ${state}, so there is nothing to ${decision}: pins list ${target.server} shows its definitions and their states`,
  };
}

/**
 * Approves or rejects what waits of `target`, as `by` (the operator). A target with nothing
 * waiting is a 409, also when another operator decided it a moment before; so is one the book
 * refuses to decide (a definition quarantined because it could not be read), with the book's
 * reason. Any other failure is not the operator's to fix: it is thrown.
 */
export async function decidePins(
  desk: PinDesk,
  decision: PinDecision,
  target: PinTarget,
  by: string,
): Promise<PinDecided | PinRefusal> {
  const unknown = unknownServer(desk, target.server);
  if (unknown) return unknown;
  try {
    return { ok: true, server: target.server, pins: await desk.board[decision](target, by) };
  } catch (error) {
    if (!(error instanceof McpboxError)) throw error;
    if (error.code === 'PIN_NOT_WAITING') return nothingWaits(decision, target);
    if (error.code === 'PIN_UNDECIDABLE') return { ok: false, status: 409, error: error.message };
    throw error;
  }
}
