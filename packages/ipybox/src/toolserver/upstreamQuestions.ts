/**
 * What an upstream MCP server asks in the middle of a tool call that kernel code made — an
 * elicitation ("Really deploy?") or a sampling request — goes to the user through the MCP client
 * whose cell is running in this kernel, and the answer goes back upstream. Either upstream era:
 * a 2026-07-28 upstream's `input_required` rounds and a 2025 upstream's `elicitation/create`
 * requests both reach the framework client's {@link Askers}, which this module supplies.
 *
 * The question is put when it arrives, to the cell running at that moment (a call made from a
 * thread after its cell ended finds nobody). Nobody there, a client that cannot answer, or no
 * answer within the approval timeout: the tool call fails with {@link NoAnswerError}, which kernel
 * code sees as `InputUnavailable` — never a wait without end. While the user decides, the cell's
 * timeout is paused, as for an approval.
 *
 * @module
 */
import { type CallOptions, errorMessage } from '@mcpbox/framework';
import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
} from '@modelcontextprotocol/server';
import type { ToolCall } from '../approval/approvalRequest.ts';

/** How the running cell's client answers questions (its `ctx.elicit` and `ctx.sample`). */
export interface UserAskers {
  elicit?: (params: ElicitRequestParams) => Promise<ElicitResult>;
  sample?: (params: CreateMessageRequestParams) => Promise<CreateMessageResult>;
  /** Why this client cannot be asked at all (then neither function is given). */
  unavailable?: string;
}

/** The running cell's side: its client, and its clock to stop while the user decides. */
interface Cell {
  askers: UserAskers;
  pause(): void;
  resume(): void;
}

/** A question from an upstream that nobody answered; kernel code gets `InputUnavailable`. */
export class NoAnswerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NoAnswerError';
  }
}

/**
 * The askers for a tool context: both helpers while the client can answer mid-call (a 2025
 * session, or a 2026 call that waits for its answers in place), else the reason it cannot.
 */
export function userAskersOf(ctx: {
  inputMode: 'live' | 'replay';
  elicit(params: ElicitRequestParams): Promise<ElicitResult>;
  sample(params: CreateMessageRequestParams): Promise<CreateMessageResult>;
}): UserAskers {
  if (ctx.inputMode !== 'live') {
    return {
      unavailable:
        'the MCP client sent this cell as a 2026-07-28 request that cannot wait for an answer while the cell runs',
    };
  }
  return { elicit: (params) => ctx.elicit(params), sample: (params) => ctx.sample(params) };
}

export class UpstreamQuestions {
  #cell: Cell | undefined;
  readonly #timeoutMs: () => number | undefined;

  /** @param timeoutMs the longest wait for an answer, in ms, read at each question; none: no limit of ours. */
  constructor(timeoutMs: () => number | undefined = () => undefined) {
    this.#timeoutMs = timeoutMs;
  }

  /** Makes `cell` the one whose client is asked, until the returned function is called. */
  attach(cell: Cell): () => void {
    this.#cell = cell;
    return () => {
      if (this.#cell === cell) this.#cell = undefined;
    };
  }

  /** The framework client's askers for one tool call from kernel code. */
  askersFor(call: ToolCall): Pick<CallOptions, 'caller' | 'elicit' | 'sample'> {
    const what = `${call.server_name}.${call.tool_name}`;
    return {
      // Every call of a tool server comes from one kernel: one caller, so a 2025 upstream's
      // question can be routed even when several of its calls are in flight.
      caller: 'kernel',
      elicit: (params) =>
        this.#ask(what, 'elicitation', (askers) =>
          askers.elicit?.({ ...params, message: framed(call, params.message) }),
        ),
      sample: (params) => this.#ask(what, 'sampling', (askers) => askers.sample?.(params)),
    };
  }

  async #ask<T>(
    what: string,
    kind: 'elicitation' | 'sampling',
    put: (askers: UserAskers) => Promise<T> | undefined,
  ): Promise<T> {
    const cell = this.#cell;
    const refuse = (why: string) =>
      new NoAnswerError(`${what} asked the user for input (${kind}), but ${why}`);
    if (!cell) throw refuse('no cell is running, so no MCP client is there to answer');
    if (cell.askers.unavailable) throw refuse(cell.askers.unavailable);
    let asked: Promise<T> | undefined;
    try {
      asked = put(cell.askers);
    } catch (error) {
      throw refuse(`the MCP client could not be asked: ${errorMessage(error)}`);
    }
    if (!asked) throw refuse(`the MCP client offers no ${kind}`);
    cell.pause();
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeoutMs = this.#timeoutMs();
      const expired =
        timeoutMs === undefined
          ? undefined
          : new Promise<never>((_, reject) => {
              timer = setTimeout(
                () => reject(refuse(`no answer came within ${timeoutMs / 1000} s`)),
                timeoutMs,
              );
            });
      return await (expired ? Promise.race([asked, expired]) : asked);
    } catch (error) {
      if (error instanceof NoAnswerError) throw error;
      throw refuse(`asking the MCP client failed: ${errorMessage(error)}`);
    } finally {
      clearTimeout(timer);
      cell.resume();
    }
  }
}

/** The upstream's message, saying who asks: the user did not call this tool, their code did. */
function framed(call: ToolCall, message: string): string {
  return `The MCP server '${call.server_name}' (tool '${call.tool_name}', called by code in the ipybox kernel) asks:\n\n${message}`;
}
