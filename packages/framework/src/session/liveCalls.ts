/**
 * 2026-07-28 requests to a tool that keeps running while it asks (`keepsRunning` in its
 * {@link ToolConfig}): the handler is not re-run on the retry, as {@link InputRounds} would; it
 * runs once, as a {@link DetachedCall}, and each of its questions ends the current request with
 * `input_required` while the handler keeps waiting for the answer.
 *
 * The sealed `requestState` names the waiting call (its id) and the questions asked (key →
 * digest), and is bound to the principal, the tool and its arguments. The client's retry — the
 * same `tools/call` with `inputResponses` and that `requestState` — delivers the answers to the
 * waiting questions and then waits, in its turn, for the call's result or its next questions.
 * A cancelled waiting request (`notifications/cancelled`, a closed stream) cancels the call.
 *
 * @module
 */
import {
  type InputRequiredResult,
  inputRequired,
  ProtocolError,
  ProtocolErrorCode,
} from '@modelcontextprotocol/server';
import type { RequestExtra } from '../contract/tool.ts';
import { DetachedCall } from './detachedCall.ts';
import { type DetachedCallTable, detachedCalls, type EndedReason } from './detachedCallTable.ts';
import {
  answerOf,
  callDigest,
  principalOf,
  type RoundsCodec,
  type SealedRounds,
} from './inputRounds.ts';

export interface LiveCallOptions {
  codec: RoundsCodec;
  /** How long each question waits for the client's answer. */
  inputTimeoutMs?: number;
  /** Default: the process-wide table. */
  table?: DetachedCallTable;
}

type Served<R> = { result: R } | { inputRequired: InputRequiredResult };

function invalid(message: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, message);
}

const ENDED: Record<EndedReason | 'unknown', string> = {
  finished: 'the call this requestState names has already returned its result',
  'timed out':
    'the call this requestState names stopped waiting: its question was not answered in time, ' +
    'so it went on without the answer',
  cancelled: 'the call this requestState names was cancelled',
  unknown: 'the call this requestState names is not running (it ended, or the server restarted)',
};

/**
 * Serves one 2026 request to a keeps-running tool: starts the call (no `requestState`) or
 * answers the waiting one, then waits for its result or its next questions.
 */
export async function serveLiveCall<R>(
  extra: RequestExtra,
  call: { method: string; name: string; args: unknown },
  options: LiveCallOptions,
  run: (ctx: RequestExtra, detached: DetachedCall) => Promise<R>,
): Promise<Served<R>> {
  const table = options.table ?? detachedCalls;
  const principal = principalOf(extra);
  const digest = () => callDigest(call.method, call.name, call.args);
  const state = extra.mcpReq.requestState<SealedRounds>();
  let detached: DetachedCall;
  let start: (() => void) | undefined;
  if (state === undefined) {
    // The digest binds a requestState to this call: needed only once it asks a question. So is
    // its place in the table, where a retry finds it (added when a requestState names it).
    detached = new DetachedCall({
      principal,
      call: digest,
      inputTimeoutMs: options.inputTimeoutMs,
    });
    detached.onTimeout = () => table.remove(detached, 'timed out');
    const ctx = detached.contextFrom(extra);
    const started = detached;
    start = () => started.start(() => run(ctx, started));
  } else {
    detached = resume(table, state, principal, digest());
    deliverAnswers(detached, state, extra.mcpReq.inputResponses);
  }
  return waitOn(table, detached, extra, options.codec, start) as Promise<Served<R>>;
}

/** The call a retry names; -32602 saying what happened when it cannot be answered. */
function resume(
  table: DetachedCallTable,
  state: SealedRounds,
  principal: string,
  digest: string,
): DetachedCall {
  if (typeof state.run !== 'string' || state.call !== digest) {
    throw invalid('requestState does not belong to this request; call the tool again');
  }
  const detached = table.get(state.run, principal);
  if (!detached || detached.call !== digest) {
    const why = ENDED[table.ended(state.run, principal) ?? 'unknown'];
    throw invalid(`${why}; call the tool again without requestState`);
  }
  return detached;
}

/**
 * Hands each answer to the question it answers. All answers are checked before any is
 * delivered, so a malformed one fails the retry (-32602) and leaves every question waiting; an
 * answer for a question already answered (a repeated retry) or never asked is ignored.
 */
function deliverAnswers(
  detached: DetachedCall,
  state: SealedRounds,
  raw: Record<string, unknown> | undefined,
): void {
  const responses = raw !== null && typeof raw === 'object' ? raw : {};
  const asked = state.asked !== null && typeof state.asked === 'object' ? state.asked : {};
  const waiting = new Map(detached.questions.map((q) => [q.key, q]));
  const answers: [string, unknown][] = [];
  for (const [key, digest] of Object.entries(asked)) {
    if (!Object.hasOwn(responses, key)) continue;
    if (detached.timedOut(key)) {
      throw invalid(
        `the question '${key}' was not answered in time and was withdrawn (the call went on ` +
          'without the answer); wait for the call to ask again, or call the tool again',
      );
    }
    const question = waiting.get(key);
    if (!question || question.digest !== digest) continue;
    answers.push([key, answerOf(responses, key, question.kind)]);
  }
  for (const [key, value] of answers) detached.answer(key, value);
}

/**
 * Waits on the call for this request: its outcome ends the request (and the call), a waiting
 * question ends the request with `input_required`. Only one request waits on a call at a time.
 * A new call is started here (`start`), once this request waits on it: what its handler sends
 * first, before any `await`, reaches the request too.
 */
async function waitOn(
  table: DetachedCallTable,
  detached: DetachedCall,
  extra: RequestExtra,
  codec: RoundsCodec,
  start: (() => void) | undefined,
): Promise<Served<unknown>> {
  if (!detached.attach(extra)) {
    throw invalid(
      'another request is already waiting on this call; retry once it has answered (with the ' +
        'requestState it returns)',
    );
  }
  start?.();
  const signal = extra.mcpReq.signal;
  const cancel = () => {
    detached.abort(new Error('The client cancelled the call'));
    table.remove(detached, 'cancelled');
  };
  if (signal.aborted) cancel();
  else signal.addEventListener('abort', cancel, { once: true });
  try {
    await detached.next();
    const outcome = detached.outcome;
    if (outcome) {
      table.remove(detached, 'finished');
      detached.dispose();
      if (outcome.ok) return { result: outcome.value };
      throw outcome.error;
    }
    if (detached.aborted) throw detached.signal.reason;
    const questions = detached.questions;
    table.add(detached); // before the client can hold a requestState naming it
    const requestState = await codec.mint(
      {
        call: detached.call,
        run: detached.id,
        asked: Object.fromEntries(questions.map((q) => [q.key, q.digest])),
      },
      extra,
    );
    return {
      inputRequired: inputRequired({
        inputRequests: Object.fromEntries(questions.map((q) => [q.key, q.request])),
        requestState,
      }),
    };
  } finally {
    signal.removeEventListener('abort', cancel);
    detached.detach(extra);
  }
}
