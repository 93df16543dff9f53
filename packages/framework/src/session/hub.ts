/**
 * Keeps track of the open MCP sessions and makes them follow the catalog: every catalog change
 * becomes `notifications/{tools,resources,prompts}/list_changed` to every open session, and a
 * resource update reaches every session subscribed to that URI.
 *
 * @module
 */

import type { ClientCapabilities, Implementation, Tool } from '@modelcontextprotocol/server';
import type { AccessControl } from '../access/access.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { ToolCallDispatcher } from '../catalog/toolCalls.ts';
import type { Principal } from '../contract/principal.ts';
import type { ClosedSession } from '../contract/session.ts';
import { nodeCrypto } from '../lazy.ts';
import type { Era } from '../protocol/era.ts';
import type { SkillsServing } from '../skills/serve.ts';
import { listedTools } from './handlers/tools.ts';
import { createRoundsCodec, type RoundsCodec } from './inputRounds.ts';
import { type CacheHints, McpSession } from './session.ts';
import type { ServerCounters } from './stats.ts';

export interface SessionHubOptions {
  info: Implementation;
  instructions?: string;
  catalog: Catalog;
  dispatcher: ToolCallDispatcher;
  /** Views and policy, which decide what each caller's lists show. */
  access: AccessControl;
  counters: ServerCounters;
  /** Key sealing 2026 `requestState`; default a random key per process. */
  requestStateKey?: string;
  cacheHints?: CacheHints;
  /** Serves the server's skills on each session (`server.skills`). */
  skills?: SkillsServing;
}

/** Where 2026 HTTP clients' `subscriptions/listen` streams get catalog changes (the SDK's notifier). */
export interface ModernNotifier {
  toolsChanged(): void;
  promptsChanged(): void;
  resourcesChanged(): void;
  resourceUpdated(uri: string): void;
}

export class SessionHub {
  readonly #options: SessionHubOptions & { rounds: RoundsCodec };
  readonly #sessions = new Set<McpSession>();
  readonly #notifiers = new Set<ModernNotifier>();
  readonly #closeListeners = new Set<(closed: ClosedSession) => void>();
  readonly #unsubscribe: (() => void)[];

  constructor(options: SessionHubOptions) {
    this.#options = { ...options, rounds: createRoundsCodec(options.requestStateKey) };
    this.#unsubscribe = [
      options.catalog.onChange((kinds) => {
        for (const session of this.#sessions) session.notifyListChanged(kinds);
        for (const notifier of this.#notifiers) {
          if (kinds.has('tools')) notifier.toolsChanged();
          if (kinds.has('prompts')) notifier.promptsChanged();
          if (kinds.has('resources')) notifier.resourcesChanged();
        }
      }),
      options.catalog.onResourceUpdated((uri) => {
        for (const session of this.#sessions) session.notifyResourceUpdated(uri);
        for (const notifier of this.#notifiers) notifier.resourceUpdated(uri);
      }),
    ];
  }

  /**
   * A new session of `era` (the transport entry that opens it decided the era), counted and
   * tracked until its server closes. Pass `track: false` for one-request sessions (stateless
   * HTTP) that never outlive their request.
   */
  open({
    era,
    track = true,
    view,
    principal,
  }: {
    era: Era;
    track?: boolean;
    /** The view (virtual server) the session serves; the whole catalog when undefined. */
    view?: string;
    /** Who the connection belongs to when no request carries authentication (stdio). */
    principal?: Principal;
  }): McpSession {
    const session = new McpSession({
      ...this.#options,
      era,
      view,
      principal,
      // A UUID (unique across a cluster's replicas, whose gate state it keys), drawn when a
      // handler or the close first reads it: node:crypto is not needed for the first answer.
      connectionId: track ? () => nodeCrypto().randomUUID() : undefined,
    });
    const counters = this.#options.counters;
    counters.connections += 1;
    if (!track) return session;
    this.#sessions.add(session);
    counters.sessions = this.#sessions.size;
    // The SDK calls onclose when the transport closes, whoever closed it.
    const previous = session.server.onclose;
    session.server.onclose = () => {
      previous?.();
      this.#sessions.delete(session);
      counters.sessions = this.#sessions.size;
      const closed = { connectionId: session.connectionId as string, sessionId: session.sessionId };
      for (const listener of this.#closeListeners) listener(closed);
    };
    return session;
  }

  /** Hears every tracked session that closes. Returns a remover. */
  onSessionClosed(listener: (closed: ClosedSession) => void): () => void {
    this.#closeListeners.add(listener);
    return () => this.#closeListeners.delete(listener);
  }

  /**
   * What a 2026 `tools/list` through `view` shows this caller, for the HTTP entry's cache of
   * serialized answers (transports/toolsListCache.ts): the session handler's own listing.
   */
  listedTools(
    principal: Principal,
    view: string | undefined,
    capabilities: ClientCapabilities | undefined,
  ): Tool[] {
    const { catalog, access } = this.#options;
    return listedTools(catalog, access, principal, view, capabilities);
  }

  /** Counts a request answered without a session, as a session's handler counts its own. */
  countAnswered(principal: Principal, view: string | undefined): void {
    const { counters, access } = this.#options;
    counters.requests += 1;
    counters.last_request = Date.now();
    access.seen.request(principal, view);
  }

  /**
   * The input schema a listed tool publishes, or undefined for an unknown or disabled tool: for
   * checks at the HTTP entry (the `Mcp-Param-*` headers of a 2026 call). Through a view, `name`
   * is the view's name for the tool and the schema the view's (fixed arguments hidden).
   */
  toolInputSchema(name: string, viewName?: string): Record<string, unknown> | undefined {
    const view = this.#options.access.view(viewName);
    const catalogName = view ? view.catalogName(name) : name;
    const tool = catalogName === undefined ? undefined : this.#options.catalog.getTool(catalogName);
    if (!tool?.enabled) return undefined;
    return view ? view.present(tool.definition).inputSchema : tool.definition.inputSchema;
  }

  /** Feeds catalog changes to a 2026 endpoint's subscription streams. Returns a remover. */
  addModernNotifier(notifier: ModernNotifier): () => void {
    this.#notifiers.add(notifier);
    return () => this.#notifiers.delete(notifier);
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** Closes every open session and stops following the catalog. */
  async close(): Promise<void> {
    for (const stop of this.#unsubscribe) stop();
    this.#notifiers.clear();
    await Promise.allSettled([...this.#sessions].map((s) => s.close()));
    this.#sessions.clear();
    this.#options.counters.sessions = 0;
  }
}
