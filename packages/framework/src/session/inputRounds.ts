/**
 * `await ctx.elicit(…)` and `await ctx.sample(…)` for 2026-07-28 clients, which have no
 * server→client requests: the server answers `input_required` and the client retries the same
 * `tools/call` with the answers (spec: basic/patterns/mrtr).
 *
 * The handler is simply run again on each retry. Answers from earlier rounds travel in the sealed
 * `requestState` and are handed back, in order, to the handler's earlier `ctx.elicit` calls; the
 * first question without an answer stops the run ({@link InputNeeded}) and becomes the next
 * `input_required`. So a handler must do the same thing up to each question on every run — the
 * usual rule for re-entrant handlers; side effects belong after the last question.
 *
 * `requestState` is HMAC-sealed (the SDK's codec; key per process or configured) and bound to
 * the caller, the tool and its arguments, so it cannot be forged, edited or carried to another
 * call; it expires after {@link STATE_TTL_SECONDS}.
 *
 * @module
 */
import { createHash, randomBytes } from 'node:crypto';
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
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';

/** How long a client may take to answer one round. */
export const STATE_TTL_SECONDS = 15 * 60;

/** What `requestState` carries between rounds. */
interface SealedRounds {
  /** The tool and a digest of its arguments: a state only fits the call that earned it. */
  call: string;
  answers: unknown[];
}

/** Thrown by `ctx.elicit`/`ctx.sample` when this run reached a question not yet answered. */
export class InputNeeded extends Error {
  constructor() {
    super('input required from the client');
    this.name = 'InputNeeded';
  }
}

/** The caller a sealed state belongs to: the OAuth subject/client, else anyone on this server. */
function principalOf(ctx: ServerContext): string {
  const auth = ctx.http?.authInfo as { clientId?: string; extra?: { sub?: unknown } } | undefined;
  const sub = typeof auth?.extra?.sub === 'string' ? auth.extra.sub : '';
  return `${auth?.clientId ?? ''}\u0000${sub}`;
}

export type RoundsCodec = RequestStateCodec<SealedRounds>;

/** The server's codec: `key` from the configuration, or a random per-process key. */
export function createRoundsCodec(key?: string): RoundsCodec {
  return createRequestStateCodec<SealedRounds>({
    key: key && key.length > 0 ? key : randomBytes(32),
    ttlSeconds: STATE_TTL_SECONDS,
    bind: principalOf,
  });
}

function callDigest(tool: string, args: unknown): string {
  return createHash('sha256')
    .update(tool)
    .update('\u0000')
    .update(JSON.stringify(args ?? {}))
    .digest('base64url');
}

type Kind = 'elicit' | 'sample';

/** Checks an answer has the shape of what was asked; a wrong shape is the client's error. */
function checkedAnswer(kind: Kind, view: ReturnType<typeof inputResponse>): unknown {
  if (kind === 'elicit' && view.kind === 'elicit') {
    const result: ElicitResult = { action: view.action };
    if (view.content !== undefined) result.content = view.content as ElicitResult['content'];
    return result;
  }
  if (kind === 'sample' && view.kind === 'sampling') return view.result;
  const asked = kind === 'elicit' ? 'an elicitation result' : 'a sampling result';
  throw new Error(`The client answered input_required with ${view.kind}, expected ${asked}`);
}

/** One tool call's rounds: answers so far, and the question that stopped this run, if any. */
export class InputRounds {
  readonly #codec: RoundsCodec | undefined;
  readonly #call: string;
  readonly #answers: unknown[];
  #asked = 0;
  #pending: { key: string; request: InputRequest } | undefined;

  private constructor(codec: RoundsCodec | undefined, call: string, answers: unknown[]) {
    this.#codec = codec;
    this.#call = call;
    this.#answers = answers;
  }

  /** For 2025 requests, which never go through rounds. */
  static none(): InputRounds {
    return new InputRounds(undefined, '', []);
  }

  /**
   * Reads the earlier answers from the request's sealed state (already verified by the SDK's
   * hook) plus this round's `inputResponses`. Throws when the state belongs to another call.
   */
  static fromRequest(
    ctx: ServerContext,
    codec: RoundsCodec,
    tool: string,
    args: unknown,
  ): InputRounds {
    const call = callDigest(tool, args);
    const state = ctx.mcpReq.requestState<SealedRounds>();
    if (state === undefined) return new InputRounds(codec, call, []);
    if (state.call !== call || !Array.isArray(state.answers)) {
      throw new Error('requestState does not belong to this tool call; start the call again');
    }
    return new InputRounds(codec, call, [...state.answers]).#withResponses(ctx);
  }

  /** Adds this round's answer (to the question the last state ended on), checked for shape. */
  #withResponses(ctx: ServerContext): InputRounds {
    const key = `q${this.#answers.length}`;
    const raw = ctx.mcpReq.inputResponses as Record<string, unknown> | undefined;
    const view = inputResponse(raw, key);
    if (view.kind !== 'missing') {
      const asked = view.kind === 'sampling' ? 'sample' : 'elicit';
      this.#answers.push(checkedAnswer(asked, view));
    }
    return this;
  }

  ask(kind: 'elicit', params: ElicitRequestParams): Promise<ElicitResult>;
  ask(kind: 'sample', params: CreateMessageRequestParams): Promise<CreateMessageResult>;
  async ask(
    kind: Kind,
    params: ElicitRequestParams | CreateMessageRequestParams,
  ): Promise<ElicitResult | CreateMessageResult> {
    const index = this.#asked++;
    if (index < this.#answers.length) {
      const answer = this.#answers[index] as { action?: unknown };
      const isElicit = typeof answer?.action === 'string';
      if (isElicit !== (kind === 'elicit')) {
        throw new Error(
          'The handler asked different questions on this run than before; requests with ' +
            'input_required must ask the same questions in the same order',
        );
      }
      return answer as ElicitResult | CreateMessageResult;
    }
    if (!this.#codec) throw new Error('input rounds are not available for this request');
    const request =
      kind === 'elicit'
        ? inputRequired.elicit(params as ElicitRequestParams as never)
        : inputRequired.createMessage(params as CreateMessageRequestParams);
    this.#pending = { key: `q${index}`, request };
    throw new InputNeeded();
  }

  /** The question this run stopped at, if it stopped at one. */
  get pending(): boolean {
    return this.#pending !== undefined;
  }

  /** The `input_required` result asking the pending question, with the answers sealed. */
  async toResult(ctx: ServerContext): Promise<InputRequiredResult> {
    const pending = this.#pending;
    if (!pending || !this.#codec) throw new Error('no question is pending');
    const requestState = await this.#codec.mint(
      { call: this.#call, answers: this.#answers.slice(0, Number(pending.key.slice(1))) },
      ctx,
    );
    return inputRequired({ inputRequests: { [pending.key]: pending.request }, requestState });
  }
}
