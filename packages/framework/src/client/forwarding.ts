/**
 * One request forwarded to an upstream, as our caller made it: with its progress, cancellation
 * and timeout, through as many `input_required` rounds as the upstream asks (each answered by
 * our caller), and with a failure put in words that say what happened — a timeout, a cancel, the
 * upstream's own JSON-RPC error passed on, or a broken connection that is dropped so the next
 * call reconnects.
 *
 * @module
 */
import type { ClientRequest } from '@modelcontextprotocol/client';
import { errorMessage } from '../errors.ts';
import type { ConnectedUpstream } from './connect.ts';
import type { CallOptions } from './connectionOptions.ts';
import { UpstreamError } from './errors.ts';
import type { UpstreamLifecycle } from './lifecycle.ts';
import { type CallerQuestions, type InFlight, MAX_INPUT_ROUNDS } from './questions.ts';
import { NO_SDK_TIMEOUT, type ProgressRouter, RequestDeadline } from './requestControl.ts';
import { type ResultSchema, withoutProtocolMeta } from './resultShapes.ts';
import { isProtocolError, isSdkError } from './sdk.ts';

/** The methods whose result may be `input_required` (2026-07-28, basic/patterns/mrtr). */
const INTERACTIVE = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** What a request is forwarded through: the connection's parts it needs. */
export interface Forwarder {
  name: string;
  /** Default per-request timeout in ms, when the call sets none. */
  requestTimeoutMs: number;
  lifecycle: Pick<UpstreamLifecycle, 'ready' | 'ensure' | 'broken'>;
  progress: ProgressRouter;
  questions: CallerQuestions;
}

/** One request to the upstream (connecting first if needed); resolves to its final result. */
export async function forwardRequest(
  via: Forwarder,
  method: string,
  params: Record<string, unknown>,
  schema: ResultSchema,
  options: CallOptions,
): Promise<unknown> {
  // Connected already (every call but the first): no promise to wait for.
  const live = via.lifecycle.ready ?? (await via.lifecycle.ensure());
  const timeout = options.timeout ?? via.requestTimeoutMs;
  const deadline = new RequestDeadline(timeout, options.signal);
  const { onprogress } = options;
  const route = onprogress
    ? via.progress.register((progress) => {
        deadline.touch();
        onprogress(progress);
      })
    : undefined;
  const withToken = route
    ? { ...params, _meta: { ...(params._meta as object), progressToken: route.token } }
    : params;
  const call = via.questions.begin(options, deadline);
  try {
    return await roundTrips(via, live, method, withToken, schema, call, deadline);
  } catch (error) {
    if (call.failure) throw call.failure.error;
    throw explainRequestError(error, via, live, method, deadline, timeout);
  } finally {
    via.questions.end(call);
    deadline.dispose();
    route?.release();
  }
}

/** Sends the request, and again with our caller's answers while the upstream asks for input. */
async function roundTrips(
  via: Forwarder,
  live: ConnectedUpstream,
  method: string,
  first: Record<string, unknown>,
  schema: ResultSchema,
  call: InFlight,
  deadline: RequestDeadline,
): Promise<Record<string, unknown>> {
  let leg = first;
  for (let round = 0; ; round++) {
    const result = await sendLeg(live, method, leg, schema, deadline);
    if (result.resultType !== 'input_required') return withoutProtocolMeta(result);
    if (round >= MAX_INPUT_ROUNDS) {
      throw new UpstreamError(
        'PROTOCOL_ERROR',
        `upstream '${via.name}' still asked for input after ${MAX_INPUT_ROUNDS} rounds of ${method}`,
      );
    }
    leg = await via.questions.nextRound(call, first, result);
    deadline.touch();
  }
}

/** Not `async`: the direct request's promise is handed back as it is, without another wrapping. */
function sendLeg(
  live: ConnectedUpstream,
  method: string,
  leg: Record<string, unknown>,
  schema: ResultSchema,
  deadline: RequestDeadline,
): Promise<Record<string, unknown>> {
  const allowInputRequired = INTERACTIVE.has(method);
  if (live.direct?.takes(method)) {
    return live.direct.request(method, leg, schema, deadline, allowInputRequired);
  }
  return live.client.request(
    // Typed as any ClientRequest: the standard methods, built by UpstreamConnection's methods.
    { method, params: leg } as ClientRequest,
    schema,
    // Aborting the signal makes the SDK tell the upstream (cancel notification / stream close).
    {
      signal: deadline.signal,
      timeout: NO_SDK_TIMEOUT,
      allowInputRequired,
    },
  ) as Promise<Record<string, unknown>>;
}

function explainRequestError(
  error: unknown,
  via: Forwarder,
  live: ConnectedUpstream,
  method: string,
  deadline: RequestDeadline,
  timeout: number,
): unknown {
  const { name } = via;
  if (error instanceof UpstreamError) return error;
  if (deadline.timedOut) {
    return new UpstreamError(
      'REQUEST_TIMEOUT',
      `upstream '${name}' did not answer ${method} within ${timeout} ms`,
      { cause: error },
    );
  }
  if (deadline.aborted) {
    return new UpstreamError('CANCELLED', `${method} on upstream '${name}' was cancelled`, {
      cause: error,
    });
  }
  if (isSdkError(error, 'ConnectionClosed')) {
    return new UpstreamError(
      'CONNECTION_CLOSED',
      `upstream '${name}' is not running (it stopped during ${method}); it will be restarted on the next call`,
      { cause: error },
    );
  }
  // An upstream's JSON-RPC error (unknown tool, invalid params …) is its answer: pass it on —
  // unless it says our protocol version is not (or no longer) spoken there: the server behind
  // the connection changed era, and only a new connect, negotiating afresh, can reach it.
  const wrongEra = isProtocolError(error, 'UnsupportedProtocolVersion');
  if (isProtocolError(error) && !wrongEra) return error;
  // Anything else is the transport failing: the connection is dropped.
  via.lifecycle.broken(live, wrongEra);
  return new UpstreamError(
    'CONNECTION_CLOSED',
    `upstream '${name}' failed during ${method} (${errorMessage(error)}); it will be reconnected on the next call`,
    { cause: error },
  );
}
