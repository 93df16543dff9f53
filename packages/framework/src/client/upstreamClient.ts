/**
 * The SDK `Client` a connection talks to its upstream through, and the change subscription it
 * asks for: what we announce we can do (elicitation and sampling, on behalf of our callers), and
 * where what the upstream sends unasked goes — its questions to our callers, list changes, log
 * messages. Built afresh for every connect and every transport tried.
 *
 * @module
 */
import type * as ClientSdk from '@modelcontextprotocol/client';
import type { Client, ServerCapabilities } from '@modelcontextprotocol/client';
import { errorMessage } from '../errors.ts';
import type { ListKind, ResolvedOptions } from './connectionOptions.ts';
import type { CallerQuestions } from './questions.ts';
import { clientSdk } from './sdk.ts';

export interface UpstreamClientSpec {
  name: string;
  options: Pick<ResolvedOptions, 'clientInfo' | 'logger' | 'onListChanged'>;
  /** Where the upstream's 2025 elicitation and sampling requests are answered. */
  questions: CallerQuestions;
  /** The client's transport closed (the upstream stopped, or we closed it). */
  onClosed: (client: Client) => void;
}

/** What the era's codec makes of a raw result (the SDK's own decoding, see below). */
export type DecodedResult =
  | { kind: 'complete'; result: Record<string, unknown> }
  | {
      kind: 'input_required';
      inputRequests: Record<string, unknown>;
      requestState?: string;
      _meta?: Record<string, unknown>;
    }
  | { kind: 'invalid'; error: Error };

/**
 * The SDK `Client` with the connection's era opened through its subclass hooks, for the requests
 * sent past its `Protocol` (directRequests.ts): they carry the same envelope and their results are
 * decoded by the same codec as the SDK's own.
 */
export interface UpstreamClient extends Client {
  /** The `_meta` envelope the SDK puts on each request of this connection (2026), or none. */
  requestEnvelope(): Readonly<Record<string, unknown>> | undefined;
  /** A raw result as the era's codec takes it: complete, `input_required`, or invalid. */
  decodeResult(method: string, raw: unknown): DecodedResult;
  /** Whether `method` exists in the negotiated era (the SDK refuses to send it otherwise). */
  inEra(method: string): boolean;
}

type UpstreamClientClass = new (
  ...args: ConstructorParameters<typeof ClientSdk.Client>
) => UpstreamClient;

function defineUpstreamClient(Base: typeof ClientSdk.Client): UpstreamClientClass {
  return class extends Base implements UpstreamClient {
    requestEnvelope() {
      return this._outboundMetaEnvelope();
    }

    decodeResult(method: string, raw: unknown): DecodedResult {
      return this._wireCodec().decodeResult(method, raw);
    }

    inEra(method: string): boolean {
      return this._wireCodec().hasRequestMethod(method);
    }
  };
}

let upstreamClientClass: UpstreamClientClass | undefined;

export function makeUpstreamClient(spec: UpstreamClientSpec): UpstreamClient {
  const { name, questions } = spec;
  const { logger, onListChanged } = spec.options;
  upstreamClientClass ??= defineUpstreamClient(clientSdk().sdk.Client);
  const client = new upstreamClientClass(spec.options.clientInfo, {
    // What our callers can do for an upstream: their own `ctx.elicit` / `ctx.sample`, which
    // check the downstream client's capabilities at call time.
    capabilities: { elicitation: { form: {}, url: {} }, sampling: {} },
    // `input_required` rounds are driven per call (forwarding.ts), where the caller is known.
    inputRequired: { autoFulfill: false },
  });
  client.onclose = () => spec.onClosed(client);
  client.onerror = (error) => logger.debug(`upstream '${name}': ${errorMessage(error)}`);
  // A 2025 upstream asks by sending requests; they carry nothing naming the call they belong to.
  client.setRequestHandler('elicitation/create', ({ params }) =>
    questions.answerRequest('elicit', params),
  );
  client.setRequestHandler('sampling/createMessage', ({ params }) =>
    questions.answerRequest('sample', params),
  );
  const changed = (kind: ListKind) => async () => onListChanged?.(kind);
  client.setNotificationHandler('notifications/tools/list_changed', changed('tools'));
  client.setNotificationHandler('notifications/resources/list_changed', changed('resources'));
  client.setNotificationHandler('notifications/prompts/list_changed', changed('prompts'));
  client.setNotificationHandler('notifications/message', async ({ params }) => {
    const data = typeof params.data === 'string' ? params.data : JSON.stringify(params.data);
    logger.debug(`[upstream ${name}] ${params.level}: ${data}`);
  });
  return client;
}

/**
 * The `subscriptions/listen` filter for the lists the upstream says can change (2026-07-28);
 * empty when none can.
 */
export function listChangeFilter(capabilities: ServerCapabilities) {
  return {
    ...(capabilities.tools?.listChanged && { toolsListChanged: true }),
    ...(capabilities.resources?.listChanged && { resourcesListChanged: true }),
    ...(capabilities.prompts?.listChanged && { promptsListChanged: true }),
  };
}
