/**
 * Requests to a stdio upstream, sent and matched by hand instead of through the SDK client's
 * `Protocol`. On that path the SDK zod-parses every response twice (its transport hook and its
 * response dispatch), gives each request an abort listener and a timer of its own, and settles
 * through a promise chain — about 40 % of our own CPU per mirrored call — while our line reader
 * (`stdioReader.ts`) has already checked the envelope, and {@link RequestDeadline} already owns
 * the timeout and the caller's cancellation.
 *
 * What the era decides is still the SDK's, through the client's own hooks (`upstreamClient.ts`):
 * every request and cancellation carries the `_meta` envelope the SDK would put on it (2026), and
 * every result is decoded by the era's codec — a 2026 result checked against its wire schema and
 * told apart as complete, `input_required` (handed back as the SDK's manual mode does, for
 * `forwarding.ts` to answer) or invalid; a 2025 one with any `resultType` dropped. Only stdio is
 * taken over, where messages are written as they are; connecting, era negotiation, the
 * upstream's own requests and notifications, methods outside the era and HTTP upstreams stay
 * with the SDK. What callers see is what the SDK gave them: the decoded result, a JSON-RPC error
 * as the SDK's `ProtocolError`, `SdkError`s for a closed connection, a cancelled request or a
 * result the codec or schema refuses, and `notifications/cancelled` sent upstream on abort.
 *
 * Our ids are strings (`<prefix>:<n>`), which the SDK's numeric ids never collide with; a late
 * answer to a request we gave up on finds nobody here and goes on to the SDK, which reports it
 * through `onerror` as it always did.
 *
 * @module
 */
import type {
  JSONRPCMessage,
  StandardSchemaV1,
  Transport,
  TransportSendOptions,
} from '@modelcontextprotocol/client';
import type { RequestDeadline } from './requestControl.ts';
import { clientSdk } from './sdk.ts';
import type { DecodedResult, UpstreamClient } from './upstreamClient.ts';

/** The client's view of the negotiated era that these requests follow. */
type Era = Pick<UpstreamClient, 'requestEnvelope' | 'decodeResult' | 'inEra'>;

interface Pending {
  method: string;
  /** An `input_required` result is handed back (the SDK's manual mode) rather than refused. */
  allowInputRequired: boolean;
  schema: StandardSchemaV1<unknown, Record<string, unknown>>;
  resolve: (result: Record<string, unknown>) => void;
  reject: (error: unknown) => void;
}

interface Response {
  id?: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/** What a request given up on (timeout, cancellation, a stop) rejects with, as the SDK's do. */
function cancelled(reason: unknown): unknown {
  const { SdkError, SdkErrorCode } = clientSdk().sdk;
  return reason instanceof SdkError
    ? reason
    : new SdkError(SdkErrorCode.RequestTimeout, String(reason));
}

export class DirectRequests {
  readonly #transport: Transport;
  readonly #era: Era;
  readonly #prefix: string;
  readonly #pending = new Map<string, Pending>();
  #next = 0;

  /**
   * @param era the connected client, whose envelope and codec these requests use.
   * @param prefix makes our ids readable in upstream logs, e.g. the upstream's name.
   */
  constructor(transport: Transport, era: Era, prefix: string) {
    this.#transport = transport;
    this.#era = era;
    this.#prefix = `${prefix}:`;
  }

  /** Whether `method` is sent here: one the negotiated era has (the SDK refuses the others). */
  takes(method: string): boolean {
    return this.#era.inEra(method);
  }

  /**
   * Call after `client.connect(transport)`, which installs the handlers being wrapped: responses
   * to our ids are taken here, everything else goes on to the SDK; when the transport closes,
   * our requests fail as the SDK's do.
   */
  attach(): void {
    const transport = this.#transport;
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const id = (message as Response).id;
      if (typeof id === 'string' && !('method' in message)) {
        const pending = this.#pending.get(id);
        if (pending) {
          this.#pending.delete(id);
          this.#settle(pending, message as Response);
          return;
        }
      }
      deliver?.(message, extra);
    };
    const closed = transport.onclose;
    transport.onclose = () => {
      try {
        closed?.();
      } finally {
        this.#failAll();
      }
    };
  }

  /**
   * Sends `method` and resolves with the upstream's result, checked by `schema`. Aborting the
   * deadline (timeout, the caller's cancellation, a deliberate stop) tells the upstream and
   * rejects at once. With `allowInputRequired`, an `input_required` result resolves as the SDK's
   * manual mode gives it (`resultType`, `inputRequests`, `requestState`, `_meta`); without, it
   * is refused as the SDK refuses it when it does not fulfil input itself.
   */
  request(
    method: string,
    params: Record<string, unknown>,
    schema: Pending['schema'],
    deadline: RequestDeadline,
    allowInputRequired = false,
  ): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      if (deadline.aborted) return reject(cancelled(deadline.reason));
      this.#next += 1;
      const id = this.#prefix + this.#next;
      this.#pending.set(id, { method, allowInputRequired, schema, resolve, reject });
      deadline.onAbort((reason) => {
        if (!this.#pending.delete(id)) return;
        this.#send({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: this.#enveloped({ requestId: id, reason: String(reason) }),
        }).catch((error) =>
          this.#transport.onerror?.(new Error(`Failed to send cancellation: ${error}`)),
        );
        reject(cancelled(reason));
      });
      const message = { method, params: this.#enveloped(params), jsonrpc: '2.0', id };
      this.#send(message as JSONRPCMessage).catch((error) => {
        if (this.#pending.delete(id)) reject(error);
      });
    });
  }

  /** `params` with the era's envelope in `_meta`; keys the caller set there win, as in the SDK. */
  #enveloped(params: Record<string, unknown>): Record<string, unknown> {
    const envelope = this.#era.requestEnvelope();
    if (envelope === undefined) return params;
    return { ...params, _meta: { ...envelope, ...(params._meta as object | undefined) } };
  }

  #send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    try {
      return this.#transport.send(message, options);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #settle(pending: Pending, response: Response): void {
    const { ProtocolError, SdkError, SdkErrorCode } = clientSdk().sdk;
    if (response.error) {
      const { code, message, data } = response.error;
      pending.reject(ProtocolError.fromError(code, message, data));
      return;
    }
    let decoded: DecodedResult;
    try {
      decoded = this.#era.decodeResult(pending.method, response.result);
    } catch (error) {
      pending.reject(error);
      return;
    }
    if (decoded.kind === 'invalid') {
      pending.reject(decoded.error);
      return;
    }
    if (decoded.kind === 'input_required') {
      if (!pending.allowInputRequired) {
        const why = `Unsupported result type 'input_required' for ${pending.method}`;
        pending.reject(new SdkError(SdkErrorCode.UnsupportedResultType, why));
        return;
      }
      const { kind: _kind, ...rest } = decoded;
      pending.resolve({ resultType: 'input_required', ...rest });
      return;
    }
    const result = decoded.result;
    const checked = pending.schema['~standard'].validate(result);
    if (checked instanceof Promise) throw new Error('internal error: an async result schema');
    if (checked.issues && checked.issues.length > 0) {
      const why = checked.issues.map((issue) => issue.message).join(', ');
      pending.reject(
        new SdkError(SdkErrorCode.InvalidResult, `Invalid result for ${pending.method}: ${why}`),
      );
      return;
    }
    pending.resolve((checked as { value: Record<string, unknown> }).value);
  }

  /** The connection closed: every request still waiting fails as the SDK's own do. */
  #failAll(): void {
    if (this.#pending.size === 0) return;
    const { SdkError, SdkErrorCode } = clientSdk().sdk;
    const waiting = [...this.#pending.values()];
    this.#pending.clear();
    for (const pending of waiting) {
      pending.reject(new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'));
    }
  }
}
