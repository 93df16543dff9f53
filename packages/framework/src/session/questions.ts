/**
 * A question a handler asks its client (`ctx.elicit`, `ctx.sample`, `ctx.listRoots`) in the
 * SDK's wire shape, for a 2026-07-28 client's `inputRequests`. Shared by the replayed rounds
 * (`inputRounds.ts`) and the calls that keep running (`detachedCall.ts`), so neither imports the
 * other.
 *
 * @module
 */
import {
  type CreateMessageRequestParams,
  type ElicitRequestParams,
  type ElicitRequestURLParams,
  type InputRequest,
  inputRequired,
} from '@modelcontextprotocol/server';

/** What a question asks for: an elicitation, a sampling result, or the client's roots. */
export type InputKind = 'elicit' | 'sample' | 'roots';

/** The embedded request for a question, in the SDK's wire shape. */
export function inputRequestOf(kind: InputKind, params: unknown): InputRequest {
  if (kind === 'sample') return inputRequired.createMessage(params as CreateMessageRequestParams);
  if (kind === 'roots') return inputRequired.listRoots();
  const elicit = params as ElicitRequestParams;
  if (elicit.mode === 'url') {
    const { mode: _mode, elicitationId: _id, ...url } = elicit as ElicitRequestURLParams;
    return inputRequired.elicitUrl(url);
  }
  return inputRequired.elicit(elicit as never);
}
