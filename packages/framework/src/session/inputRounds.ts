/**
 * `await ctx.elicit(…)`, `await ctx.sample(…)` and `await ctx.listRoots()` for 2026-07-28
 * clients, which have no server→client requests: the server answers `input_required` and the
 * client retries the same `tools/call` or `prompts/get` with the answers (spec:
 * basic/patterns/mrtr).
 *
 * The handler is simply run again on each retry. Every question has a key (`q<n>` for the n-th
 * question of the call, or the name the handler gave it) and is answered by the client's
 * `inputResponses` entry of that key; answers from earlier rounds travel in the sealed
 * `requestState` and are handed back to the same questions on later runs. A question without an
 * answer stops the run ({@link InputNeeded}) and becomes part of the next `input_required`; the
 * questions a run asks before it settles (`Promise.all([ctx.elicit(…), ctx.sample(…)])`) all go
 * out in one round. So a handler must ask the same questions in the same order on every run —
 * the usual rule for re-entrant handlers; side effects belong after the last question.
 *
 * An answer may arrive without a `requestState` (a client that answers a question it already
 * knows): it is taken like any other, since every answer comes from the client anyway. An entry
 * of the wrong kind for its question (a sampling result for an elicitation, a value of no known
 * shape) is a protocol error (-32602, spec "Error Handling"); entries for questions not asked are
 * ignored.
 *
 * `requestState` is HMAC-sealed (the SDK's codec; key per process or configured) and bound to
 * the caller, the method, the tool or prompt and its arguments, so it cannot be forged, edited
 * or carried to another call; it expires after {@link STATE_TTL_SECONDS}, and it is good for one
 * retry: it names a random round, spent by the first retry that presents it (`spentRounds.ts`),
 * so a completed round cannot be sent again to run the handler a second time.
 *
 * @module
 */

import {
  type CreateMessageRequestParams,
  type CreateMessageResult,
  createRequestStateCodec,
  type ElicitRequestParams,
  type ElicitResult,
  type InputRequest,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  type ListRootsResult,
  ProtocolError,
  ProtocolErrorCode,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { principalKeyOf } from '../auth/principal.ts';
import { nodeCrypto } from '../lazy.ts';
import { type InputKind, inputRequestOf } from './questions.ts';
import { spentRounds } from './spentRounds.ts';

/** How long a client may take to answer one round. */
export const STATE_TTL_SECONDS = 15 * 60;

/** One answer carried between rounds, with the kind and a digest of the question it answered. */
interface SealedAnswer {
  kind: InputKind;
  /** Digest of the question (kind and parameters): an answer only ever answers that question. */
  question: string;
  value: unknown;
}

/** What `requestState` carries between rounds. */
export interface SealedRounds {
  /** The method, the tool or prompt and a digest of its arguments: a state fits only its call. */
  call: string;
  /** Answers so far, by question key (replayed calls only). */
  answers?: Record<string, SealedAnswer>;
  /** The questions this state asked the client, by key → question digest. */
  asked?: Record<string, string>;
  /** A call that keeps running between rounds ({@link DetachedCall}): its id. */
  run?: string;
  /** A re-run round's random id, spent by the retry that presents it ({@link SpentRounds}). */
  round?: string;
}

/** Thrown by `ctx.elicit`/`ctx.sample`/`ctx.listRoots` when this run reached a question not yet answered. */
export class InputNeeded extends Error {
  constructor() {
    super('input required from the client');
    this.name = 'InputNeeded';
  }
}

/**
 * The caller a sealed state, a task or a waiting call belongs to: the OAuth principal
 * (`principalKeyOf`), else anyone on this server.
 */
export function principalOf(ctx: ServerContext): string {
  return principalKeyOf(ctx.http?.authInfo) ?? '';
}

export type RoundsCodec = RequestStateCodec<SealedRounds>;

/**
 * The server's codec: `key` from the configuration (checked now: a short one fails the start),
 * or a random per-process key. The SDK's codec takes Web Crypto at creation, which loads
 * node:crypto; the random-key codec is made on its first seal or check instead, so a server
 * answers its first request without it.
 */
export function createRoundsCodec(key?: string): RoundsCodec {
  const codecOf = (secret: string | Uint8Array) =>
    createRequestStateCodec<SealedRounds>({
      key: secret,
      ttlSeconds: STATE_TTL_SECONDS,
      bind: principalOf,
    });
  if (key && key.length > 0) return codecOf(key);
  let codec: RoundsCodec | undefined;
  const made = () => {
    codec ??= codecOf(nodeCrypto().randomBytes(32));
    return codec;
  };
  return {
    mint: (payload, ctx) => made().mint(payload, ctx),
    verify: (state, ctx) => made().verify(state, ctx),
  };
}

export function callDigest(method: string, name: string, args: unknown): string {
  return nodeCrypto()
    .createHash('sha256')
    .update(method)
    .update('\u0000')
    .update(name)
    .update('\u0000')
    .update(JSON.stringify(args ?? {}))
    .digest('base64url');
}

/**
 * What a question asks, as a digest: an answer the client gave to one question must never answer
 * another — "approve the call shown" must not approve a different call on a later run.
 */
export function questionDigest(kind: InputKind, params: unknown): string {
  return nodeCrypto()
    .createHash('sha256')
    .update(kind)
    .update('\u0000')
    .update(JSON.stringify(params ?? null))
    .digest('base64url');
}

/** Spends a retried state's round: -32602 when it was answered before (or names none). */
async function spendRound(round: unknown): Promise<string> {
  let fresh: boolean;
  try {
    fresh =
      typeof round === 'string' && (await spentRounds().spend(round, STATE_TTL_SECONDS * 1000));
  } catch {
    // The shared store is away: refuse rather than risk running a round twice.
    throw new ProtocolError(
      ProtocolErrorCode.InternalError,
      'this input round cannot be checked right now (shared state unavailable); retry shortly',
    );
  }
  if (!fresh) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      'requestState was already used: each input_required round takes one retry; start the call again without requestState',
    );
  }
  return round as string;
}

const ANSWER_KIND = { elicit: 'elicit', sampling: 'sample', roots: 'roots' } as const;
const ASKED = {
  elicit: 'an elicitation result',
  sample: 'a sampling result',
  roots: 'a roots listing',
} as const;

/**
 * The client's answer `key` in `responses` as the handler receives it (an `ElicitResult`, a
 * sampling result, a roots listing); -32602 when it is not an answer of the kind asked.
 */
export function answerOf(
  responses: Record<string, unknown>,
  key: string,
  kind: InputKind,
): unknown {
  const view = inputResponse(responses, key);
  if (view.kind === 'missing' || ANSWER_KIND[view.kind] !== kind) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `inputResponses.${key} is not ${ASKED[kind]}`,
    );
  }
  if (view.kind === 'elicit') {
    const result: ElicitResult = { action: view.action };
    if (view.content !== undefined) result.content = view.content as ElicitResult['content'];
    return result;
  }
  if (view.kind === 'sampling') return view.result;
  return { roots: view.roots } satisfies ListRootsResult;
}

/** One call's rounds: the answers so far, and the questions that stopped this run, if any. */
export class InputRounds {
  readonly #codec: RoundsCodec | undefined;
  /** The call's digest, computed when a state is read or minted (most calls need neither). */
  readonly #call: () => string;
  readonly #answers: Record<string, SealedAnswer>;
  /** What the previous round asked, by key (from the sealed state). */
  readonly #askedBefore: Record<string, string>;
  /** This round's `inputResponses` (client input, checked when a question reads it). */
  readonly #responses: Record<string, unknown>;
  readonly #keys = new Set<string>();
  readonly #pending: { key: string; question: string; request: InputRequest }[] = [];
  #asked = 0;
  #failure: ProtocolError | undefined;
  /** The round this retry spent, if it came with a state. */
  readonly #round: string | undefined;

  private constructor(
    codec: RoundsCodec | undefined,
    call: () => string,
    answers: Record<string, SealedAnswer>,
    responses: Record<string, unknown>,
    asked: Record<string, string> = {},
    round?: string,
  ) {
    this.#codec = codec;
    this.#call = call;
    this.#answers = answers;
    this.#responses = responses;
    this.#askedBefore = asked;
    this.#round = round;
  }

  /** For 2025 requests, which never go through rounds. */
  static none(): InputRounds {
    return new InputRounds(undefined, () => '', {}, {});
  }

  /**
   * Reads the earlier answers from the request's sealed state (already verified by the SDK's
   * hook), spends its round, and keeps this round's `inputResponses` for the questions to read.
   * Throws -32602 when the state belongs to another call or its round was answered already.
   */
  static async fromRequest(
    ctx: ServerContext,
    codec: RoundsCodec,
    call: { method: string; name: string; args: unknown },
  ): Promise<InputRounds> {
    let digest: string | undefined;
    const digestOf = () => {
      digest ??= callDigest(call.method, call.name, call.args);
      return digest;
    };
    const raw = ctx.mcpReq.inputResponses;
    const responses = raw !== null && typeof raw === 'object' ? { ...raw } : {};
    const state = ctx.mcpReq.requestState<SealedRounds>();
    if (state === undefined) return new InputRounds(codec, digestOf, {}, responses);
    if (
      state.call !== digestOf() ||
      state.answers === null ||
      typeof state.answers !== 'object' ||
      Array.isArray(state.answers)
    ) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        'requestState does not belong to this request; start the call again',
      );
    }
    const round = await spendRound(state.round);
    const asked = state.asked !== null && typeof state.asked === 'object' ? state.asked : {};
    return new InputRounds(
      codec,
      digestOf,
      { ...(state.answers as Record<string, SealedAnswer>) },
      responses,
      { ...asked },
      round,
    );
  }

  ask(kind: 'elicit', params: ElicitRequestParams, key?: string): Promise<ElicitResult>;
  ask(
    kind: 'sample',
    params: CreateMessageRequestParams,
    key?: string,
  ): Promise<CreateMessageResult>;
  ask(kind: 'roots', params: undefined, key?: string): Promise<ListRootsResult>;
  async ask(kind: InputKind, params: unknown, key?: string): Promise<unknown> {
    const index = this.#asked++;
    const name = key ?? `q${index}`;
    if (this.#keys.has(name)) {
      throw new Error(`Two questions of one call are named '${name}'; give each its own key`);
    }
    this.#keys.add(name);
    const question = questionDigest(kind, params);
    const answer = this.#answers[name] ?? this.#fresh(kind, name, question);
    if (answer) {
      if (answer.kind !== kind || answer.question !== question) {
        throw new Error(
          `The handler asked a different question '${name}' on this run than the one the client ` +
            'answered; a handler must ask the same questions in the same order on every run ' +
            '(start the call again)',
        );
      }
      return answer.value;
    }
    if (!this.#codec) throw new Error('input rounds are not available for this request');
    this.#pending.push({ key: name, question, request: inputRequestOf(kind, params) });
    throw new InputNeeded();
  }

  /**
   * This round's answer to question `key`, checked for the kind asked; undefined if none. The
   * answer is recorded against the question the previous round asked under that key (the one the
   * client saw), or — answered without a state — the question asked now.
   */
  #fresh(kind: InputKind, key: string, question: string): SealedAnswer | undefined {
    if (!Object.hasOwn(this.#responses, key)) return undefined;
    let value: unknown;
    try {
      value = answerOf(this.#responses, key, kind);
    } catch (error) {
      // Remembered so the call answers with this error even if the handler catches it.
      this.#failure = error as ProtocolError;
      // Nothing was answered: the client may send this round again with a proper answer.
      if (this.#round !== undefined)
        void spentRounds()
          .release(this.#round)
          .catch(() => {});
      throw error;
    }
    const answer = { kind, question: this.#askedBefore[key] ?? question, value };
    this.#answers[key] = answer;
    return answer;
  }

  /** Whether this run stopped at a question the client has not answered yet. */
  get pending(): boolean {
    return this.#pending.length > 0;
  }

  /** A malformed answer this run met: the call fails with it, whatever the handler did. */
  get failure(): ProtocolError | undefined {
    return this.#failure;
  }

  /** The `input_required` result asking the pending questions, with the answers sealed. */
  async toResult(ctx: ServerContext): Promise<InputRequiredResult> {
    if (this.#pending.length === 0 || !this.#codec) throw new Error('no question is pending');
    const asked = Object.fromEntries(this.#pending.map((p) => [p.key, p.question]));
    const requestState = await this.#codec.mint(
      {
        call: this.#call(),
        answers: this.#answers,
        asked,
        round: nodeCrypto().randomBytes(16).toString('base64url'),
      },
      ctx,
    );
    const inputRequests = Object.fromEntries(this.#pending.map((p) => [p.key, p.request]));
    return inputRequired({ inputRequests, requestState });
  }
}
