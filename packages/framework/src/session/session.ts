/**
 * One MCP session: its own low-level SDK `Server` (an SDK server serves exactly one connection,
 * and SDK v2 builds one per 2026 request), whose handlers read the shared catalog. Streamable
 * HTTP opens one per 2025 client and one per 2026 request that the SDK's entry serves; plain
 * 2026 tool calls share one per endpoint (transports/directHttp.ts), as building a session (an
 * SDK server and some twenty handlers) would be most of such a call's work. The handlers are
 * registered by concern from `handlers/`, against the small {@link SessionHost} the session
 * hands them.
 *
 * @module
 */
import type {
  CacheHint,
  Implementation,
  JSONRPCMessage,
  ServerContext,
} from '@modelcontextprotocol/server';
import type { AccessControl } from '../access/access.ts';
import { ANONYMOUS_PRINCIPAL, principalFromAuth } from '../auth/principal.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { ToolCallDispatcher } from '../catalog/toolCalls.ts';
import type { Principal } from '../contract/principal.ts';
import type { RequestExtra } from '../contract/tool.ts';
import type { Era } from '../protocol/era.ts';
import type { SkillsServing } from '../skills/serve.ts';
import { observeRequest } from '../telemetry/requests.ts';
import { withV1Aliases } from './context.ts';
import { DirectAnswers, type DirectExchange, type DirectHandler } from './directAnswers.ts';
import { registerCompletionHandler } from './handlers/completion.ts';
import type { Counted, SessionHost } from './handlers/host.ts';
import { registerPromptHandlers } from './handlers/prompts.ts';
import { registerResourceHandlers, registerSubscriptionHandlers } from './handlers/resources.ts';
import { registerToolHandlers } from './handlers/tools.ts';
import { roundsRunner } from './handlers/withRounds.ts';
import type { RoundsCodec } from './inputRounds.ts';
import { SessionServer } from './sessionServer.ts';
import type { ServerCounters } from './stats.ts';
import { registerTaskMethods, TASKS_EXTENSION } from './tasks.ts';

export interface SessionOptions {
  /** Name and version announced at `initialize`. */
  info: Implementation;
  instructions?: string;
  catalog: Catalog;
  dispatcher: ToolCallDispatcher;
  access: AccessControl;
  counters: ServerCounters;
  /** Seals `requestState` for 2026 `input_required` rounds. */
  rounds: RoundsCodec;
  /** Cache hints for 2026 list/read results; default the SDK's (`ttlMs: 0`, `private`). */
  cacheHints?: CacheHints;
  /**
   * Identifies a session that outlives one request (stdio, 2025 HTTP, SSE); handlers see it as
   * `ctx.connectionId`. Unset for a 2026 request, which has no connection beyond itself. A
   * function makes it on first use (see {@link McpSession.connectionId}).
   */
  connectionId?: string | (() => string);
  /**
   * The protocol era this session serves, decided by the transport entry that opens it (the
   * SDK's stdio and HTTP entries hand it to the session factory); every request carries it.
   */
  era: Era;
  /** The view this session serves (decided by the transport entry); undefined: the catalog. */
  view?: string;
  /**
   * The principal of a request that carries no authentication: the local user for stdio;
   * `anonymous` when unset. A request's verified token always decides instead.
   */
  principal?: Principal;
  /** Serves the server's skills (SEP-2640) on this session, when it has any. */
  skills?: SkillsServing;
}

export type CacheHints = Partial<
  Record<
    | 'tools/list'
    | 'prompts/list'
    | 'resources/list'
    | 'resources/templates/list'
    | 'resources/read'
    | 'server/discover',
    CacheHint
  >
>;

const CAPABILITIES = {
  tools: { listChanged: true },
  resources: { listChanged: true, subscribe: true },
  prompts: { listChanged: true },
  logging: {},
  completions: {},
  extensions: { [TASKS_EXTENSION]: {} },
};

export class McpSession {
  #connectionId: string | (() => string) | undefined;
  /**
   * The 2025 `Mcp-Session-Id` this session served, as its requests carried it. Kept here because
   * the SDK drops the transport (and with it the id) before its close hook runs.
   */
  sessionId: string | undefined;
  readonly server: SessionServer;
  /** See {@link SessionOptions.era}. */
  readonly era: Era;
  /** See {@link SessionOptions.view}. */
  readonly view: string | undefined;
  readonly #principal: Principal;
  readonly #access: AccessControl;
  readonly #direct: DirectAnswers;
  /** Resource URIs this client subscribed to (2025 `resources/subscribe`). */
  readonly subscriptions = new Set<string>();

  /** See {@link SessionOptions.connectionId}; made by its function on the first read. */
  get connectionId(): string | undefined {
    if (typeof this.#connectionId === 'function') this.#connectionId = this.#connectionId();
    return this.#connectionId;
  }

  constructor(options: SessionOptions) {
    const { catalog, dispatcher, counters } = options;
    this.#connectionId = options.connectionId;
    const server = new SessionServer(options.info, {
      capabilities: CAPABILITIES,
      instructions: options.instructions || undefined,
      cacheHints: options.cacheHints,
      requestState: { verify: options.rounds.verify },
    });
    this.server = server;
    this.era = options.era;
    this.view = options.view;
    this.#principal = options.principal ?? ANONYMOUS_PRINCIPAL;
    this.#access = options.access;
    const host: SessionHost = {
      server,
      catalog,
      dispatcher,
      access: options.access,
      counters,
      counted: this.#counted(counters),
      withRounds: roundsRunner(catalog, options.rounds),
      direct: new Map<string, DirectHandler>(),
    };
    registerTaskMethods(server, host.counted as never);
    registerToolHandlers(host);
    registerResourceHandlers(host);
    registerSubscriptionHandlers(host, this.subscriptions);
    registerPromptHandlers(host);
    registerCompletionHandler(host);
    options.skills?.attach(server, host.counted);
    this.#direct = new DirectAnswers({
      server,
      era: this.era,
      handlers: host.direct,
    });
    // Whoever closes the transport, the calls answered past the SDK stop with it, as the SDK's own do.
    server.onclose = () => this.#direct.close();
  }

  /**
   * Answers `message` past the SDK when it is a request the session answers itself
   * (directAnswers.ts), through `exchange`; false: give it to the SDK.
   */
  answerDirectly(message: JSONRPCMessage, exchange: DirectExchange): boolean {
    return this.#direct.answer(message, exchange);
  }

  /** Counts every request and every failure for the health endpoints, one wrapper per handler. */
  #counted(counters: ServerCounters): Counted {
    const initialized = () => this.server.getClientCapabilities();
    return <Q, R>(handler: (request: Q, extra: RequestExtra) => Promise<R>) =>
      async (request: Q, ctx: ServerContext): Promise<R> => {
        counters.requests += 1;
        counters.last_request = Date.now();
        try {
          this.sessionId ??= ctx.sessionId;
          const { era, connectionId, view } = this;
          if (era === 'modern') this.#direct.accept(ctx.mcpReq);
          // Identity comes from authentication alone: the verified token, else the connection's.
          const principal = principalFromAuth(ctx.http?.authInfo) ?? this.#principal;
          this.#access.seen.request(principal, view);
          // Traced and counted by method and era when configured (telemetry/requests.ts).
          return await observeRequest(ctx, era, (request as { params?: unknown }).params, () =>
            handler(
              request,
              withV1Aliases(ctx, { era, connectionId, initialized, principal, view }),
            ),
          );
        } catch (error) {
          counters.errors += 1;
          throw error;
        }
      };
  }

  /** Sends `list_changed` for each kind; a closed or uninitialised session is skipped quietly. */
  notifyListChanged(kinds: ReadonlySet<'tools' | 'resources' | 'prompts'>): void {
    const server = this.server;
    if (!server.transport) return;
    const ignore = () => undefined;
    if (kinds.has('tools')) server.sendToolListChanged().catch(ignore);
    if (kinds.has('resources')) server.sendResourceListChanged().catch(ignore);
    if (kinds.has('prompts')) server.sendPromptListChanged().catch(ignore);
  }

  /** Sends `notifications/resources/updated` if this client subscribed to the URI. */
  notifyResourceUpdated(uri: string): void {
    if (!this.subscriptions.has(uri) || !this.server.transport) return;
    this.server.sendResourceUpdated({ uri }).catch(() => undefined);
  }

  close(): Promise<void> {
    this.#direct.close();
    return this.server.close();
  }
}
