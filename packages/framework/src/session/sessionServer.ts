/**
 * The SDK's low-level `Server`, opened up through its subclass hooks (`buildContext`,
 * `_wireCodec`, `_outboundServerInfo`) for the requests a session answers itself
 * (directAnswers.ts): the same handler context and the same era's result encoding as the SDK's
 * own dispatch, without its per-request schema checks.
 *
 * @module
 */
import {
  type BaseContext,
  type MessageExtraInfo,
  type Result,
  Server,
  type ServerContext,
} from '@modelcontextprotocol/server';

export class SessionServer extends Server {
  /** Serves `revision` from now on, as the SDK's 2026 HTTP entry makes each request's server. */
  serveRevision(revision: string): void {
    this._negotiatedProtocolVersion = revision;
  }

  /** The context the SDK would hand a handler for `base` (logging, elicitation, sampling). */
  contextFor(base: BaseContext, transportInfo?: MessageExtraInfo): ServerContext {
    return this.buildContext(base, transportInfo);
  }

  /** A result as this era puts it on the wire (2026: `resultType`, cache fields, serverInfo). */
  encodeResult(method: string, result: Result): Result {
    return this._wireCodec().encodeResult(method, result, this._outboundServerInfo()) as Result;
  }

  /** An error code as this era sends it. */
  encodeErrorCode(code: number): number {
    return this._wireCodec().encodeErrorCode(code);
  }

  /** `result` checked against this era's schema of `method`'s result, as the SDK checks it. */
  checkResult(
    method: string,
    result: unknown,
  ): { ok: true; value: unknown } | { ok: false; message: string } {
    const outcome = this._wireCodec().validateResult(method, result);
    if (outcome.ok) return { ok: true, value: outcome.value };
    // Every method checked here is in both eras' registries: only 'invalid' can come back.
    return { ok: false, message: 'message' in outcome ? outcome.message : outcome.reason };
  }
}
