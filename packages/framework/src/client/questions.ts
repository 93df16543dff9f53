/**
 * What an upstream asks our callers in the middle of a call — elicitation or sampling — and how
 * it finds the right caller. A 2026-07-28 upstream answers the call with `input_required`: the
 * questions come with the call's own result, so they go to that call's caller, and the call is
 * sent again with the answers ({@link CallerQuestions.nextRound}). A 2025 upstream sends real
 * requests that say nothing about the call they belong to ({@link CallerQuestions.answerRequest}):
 * they go to the only call in flight that can answer, or the latest of several made by one
 * caller, and are refused rather than guessed across callers.
 *
 * @module
 */
import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
} from '@modelcontextprotocol/client';
import { UpstreamError } from './errors.ts';
import type { RequestDeadline } from './requestControl.ts';
import { clientSdk } from './sdk.ts';

/** `input_required` rounds one call may take before we call the upstream broken. */
export const MAX_INPUT_ROUNDS = 10;

/** Who answers the upstream's questions during one call. */
export interface Askers {
  /**
   * Answers the upstream's elicitations during this call — the caller's own `ctx.elicit`. If it
   * throws, the call ends with that error (and the upstream's request is cancelled).
   * Without it, an upstream that asks fails the call with `INPUT_UNAVAILABLE`.
   */
  elicit?: (params: ElicitRequestParams) => Promise<ElicitResult>;
  /** Answers the upstream's sampling requests during this call, like `elicit`. */
  sample?: (params: CreateMessageRequestParams) => Promise<CreateMessageResult>;
  /**
   * Who is calling (a session or principal id). A 2025 upstream's requests do not say which call
   * they belong to; with several calls in flight they are routed only when all are one caller's.
   */
  caller?: string;
}

type Question = 'elicit' | 'sample';

/** A call in flight. */
export interface InFlight {
  readonly askers: Askers;
  readonly deadline: RequestDeadline;
  /** The caller's error from answering a question; the call ends with it. */
  failure?: { error: unknown };
}

/** The calls in flight on one upstream connection, and their questions. */
export class CallerQuestions {
  readonly #upstream: string;
  readonly #calls = new Set<InFlight>();

  /** @param upstream the upstream's name, for messages. */
  constructor(upstream: string) {
    this.#upstream = upstream;
  }

  begin(askers: Askers, deadline: RequestDeadline): InFlight {
    const call: InFlight = { askers, deadline };
    this.#calls.add(call);
    return call;
  }

  end(call: InFlight): void {
    this.#calls.delete(call);
  }

  /** A 2025 upstream's `elicitation/create` or `sampling/createMessage` request. */
  answerRequest(question: 'elicit', params: unknown): Promise<ElicitResult>;
  answerRequest(question: 'sample', params: unknown): Promise<CreateMessageResult>;
  answerRequest(question: Question, params: unknown): Promise<ElicitResult | CreateMessageResult> {
    return this.#answer(this.#askedBy(question), question, params);
  }

  /**
   * Answers one `input_required` result (2026-07-28): each embedded request goes to the caller,
   * one after the other in the order sent, and the params for the next round come back — the
   * original ones with the answers and the upstream's `requestState`, byte for byte.
   */
  async nextRound(
    call: InFlight,
    original: Record<string, unknown>,
    result: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const requests = (result.inputRequests ?? {}) as Record<string, unknown>;
    const responses: Record<string, unknown> = {};
    for (const [key, request] of Object.entries(requests)) {
      const { method, params } = (request ?? {}) as { method?: unknown; params?: unknown };
      if (method === 'elicitation/create') {
        responses[key] = await this.#answer(call, 'elicit', params);
      } else if (method === 'sampling/createMessage') {
        responses[key] = await this.#answer(call, 'sample', params);
      } else {
        throw new UpstreamError(
          'PROTOCOL_ERROR',
          `upstream '${this.#upstream}' asked for ${JSON.stringify(method)}, which mcpbox does not offer upstreams`,
        );
      }
    }
    const next: Record<string, unknown> = { ...original };
    if (Object.keys(responses).length > 0) next.inputResponses = responses;
    if (typeof result.requestState === 'string') next.requestState = result.requestState;
    return next;
  }

  /** The call a 2025 upstream's request belongs to; never guessed across callers. */
  #askedBy(question: Question): InFlight {
    // Runs in the upstream client's request handlers: the SDK is loaded.
    const { ProtocolError, ProtocolErrorCode } = clientSdk().sdk;
    const able = [...this.#calls].filter((call) => call.askers[question] && !call.failure);
    const what = question === 'elicit' ? 'elicitation' : 'sampling';
    if (able.length === 0) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        `no call in progress through mcpbox can answer this ${what} request`,
      );
    }
    const callers = new Set(able.map((call) => call.askers.caller));
    if (able.length > 1 && (callers.size > 1 || callers.has(undefined))) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        `${able.length} calls from different callers are in progress through mcpbox; cannot tell which one this ${what} request is for`,
      );
    }
    return able[able.length - 1];
  }

  /**
   * Puts the upstream's question to the caller. The call's clock stops meanwhile (a person may be
   * answering). A caller that cannot answer ends the call with its own error.
   */
  async #answer(
    call: InFlight,
    question: Question,
    params: unknown,
  ): Promise<ElicitResult | CreateMessageResult> {
    const ask = call.askers[question] as ((p: unknown) => Promise<never>) | undefined;
    if (!ask) {
      const what = question === 'elicit' ? 'elicitation' : 'sampling';
      const error = new UpstreamError(
        'INPUT_UNAVAILABLE',
        `upstream '${this.#upstream}' asked for ${what}, which this caller cannot provide`,
      );
      call.failure = { error };
      call.deadline.abort(error);
      throw error;
    }
    const release = call.deadline.hold();
    try {
      // A call cancelled meanwhile stops waiting for the answer (the caller may never give it).
      return await untilAborted(ask(params), call.deadline.signal);
    } catch (error) {
      // A cancelled call is reported as cancelled; any other failure is the caller's own.
      if (!call.deadline.signal.aborted) {
        call.failure ??= { error };
        call.deadline.abort(error);
      }
      throw error;
    } finally {
      release();
    }
  }
}

/** `promise`, or a rejection with the signal's reason as soon as it aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
