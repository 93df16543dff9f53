/**
 * Runs a tool or prompt handler with the helpers of {@link toToolContext}, the one place where a
 * session decides how the handler's questions reach the client: live for a tool that keeps
 * running, as `input_required` rounds for any other 2026 request, not at all before 2026.
 *
 * @module
 */
import type { InputRequiredResult } from '@modelcontextprotocol/server';
import type { Catalog } from '../../catalog/catalog.ts';
import { toToolResult } from '../../catalog/toolCalls.ts';
import type { KeepsRunning, RequestExtra, ToolContext } from '../../contract/tool.ts';
import { type ToolContextOptions, toToolContext } from '../context.ts';
import { InputNeeded, InputRounds, type RoundsCodec } from '../inputRounds.ts';
import { serveLiveCall } from '../liveCalls.ts';
import { requestDeclaresTasks, startTask, TASKS_EXTENSION, tasksRequired } from '../tasks.ts';
import type { RoundsCall, WithRounds } from './host.ts';

/**
 * The session's {@link WithRounds}. For a 2026 request its questions become rounds: a question
 * still unanswered turns the call into `input_required` (even if the handler caught the
 * {@link InputNeeded} and went on), and a malformed answer fails the call with -32602.
 */
export function roundsRunner(catalog: Catalog, codec: RoundsCodec): WithRounds {
  return async <R>(
    extra: RequestExtra,
    call: RoundsCall,
    run: (ctx: ToolContext) => Promise<R>,
  ): Promise<{ result: R } | { inputRequired: InputRequiredResult }> => {
    const keepsRunning =
      call.method === 'tools/call' ? catalog.getTool(call.name)?.keepsRunning : undefined;
    if (keepsRunning && extra.era === 'modern') {
      // Asked live and answered by the retries: the handler runs once (liveCalls.ts).
      return serveLiveCall(
        extra,
        call,
        { codec, inputTimeoutMs: keepsRunning.inputTimeoutMs },
        (runExtra, detached) =>
          run(toToolContext(runExtra, { rounds: InputRounds.none(), detached })),
      );
    }
    const rounds =
      extra.era === 'modern'
        ? await InputRounds.fromRequest(extra, codec, call)
        : InputRounds.none();
    const ctx = toToolContext(extra, {
      rounds,
      asTask: call.method === 'tools/call' ? taskStarter(extra, call, keepsRunning) : undefined,
    });
    let result: R | undefined;
    try {
      result = await run(ctx);
    } catch (error) {
      if (!(error instanceof InputNeeded) || rounds.failure) throw rounds.failure ?? error;
    }
    if (rounds.failure) throw rounds.failure;
    if (rounds.pending) return { inputRequired: await rounds.toResult(extra) };
    return { result: result as R };
  };
}

/** `ctx.asTask` of a tool call: the rest of the work goes on as a task, if the client can. */
function taskStarter(
  extra: RequestExtra,
  call: RoundsCall,
  keepsRunning: KeepsRunning | undefined,
): ToolContextOptions['asTask'] {
  return (work) => {
    if (!requestDeclaresTasks(extra)) {
      throw tasksRequired(
        `Tool ${call.name} goes on as a task: declare the ${TASKS_EXTENSION} extension`,
      );
    }
    return startTask(extra, call, keepsRunning ?? {}, async (runExtra, detached) =>
      toToolResult(await work(toToolContext(runExtra, { rounds: InputRounds.none(), detached }))),
    );
  };
}
