/**
 * Another MCP server as a plugin: `upstreamPlugin(name, params)` returns a plugin module whose
 * `register()` connects to the server and mirrors its tools, resources, resource templates and
 * prompts into the catalog. Definitions are passed on as the upstream sent them — every field,
 * tool schemas as the raw JSON Schema objects (clients see them byte for byte); calls are
 * forwarded with progress and cancellation, and the upstream's results come back unchanged
 * (content, structuredContent, isError).
 *
 * Either protocol era, upstream and downstream: when the upstream asks for input in the middle
 * of a call (elicitation or sampling — `input_required` in 2026-07-28, a request in 2025), the
 * question goes to the caller's `ctx.elicit` / `ctx.sample`, which reach the downstream client
 * its own era's way, and the answer goes back upstream.
 *
 * When the upstream announces a list change, the list is fetched again and compared with what is
 * mirrored: only a real difference counts (server-everything, for one, announces a change right
 * after every connect). A real change reloads the plugin through `reload` — re-registering over
 * the running connection, so clients get `list_changed` — or, without one, is logged.
 *
 * This module holds the plugin's life cycle (connect, register, dispose); how entries are
 * mirrored is in `upstreamMirror.ts`, how list changes are followed in `upstreamChanges.ts`.
 *
 * With per-user credentials (`credentials`: `${secret:…{principal}}` headers, token exchange;
 * `upstreamCredentials.ts`), the listing uses the connection made with what names no caller, and
 * each caller's calls go through a connection of its own (`client/callerConnections.ts`).
 *
 * If the upstream dies, the next call restarts it; if that fails, the call is an `isError`
 * result saying why. `dispose()` closes the connection (and ends a stdio upstream); whoever
 * unloads the plugin calls it (mcp-proxy does; `PluginRegistry.unloadPlugin` alone does not).
 *
 * @module
 */

import { CallerConnections } from '../client/callerConnections.ts';
import {
  type ListKind,
  UpstreamConnection,
  type UpstreamConnectionOptions,
} from '../client/connection.ts';
import { describeUpstream, isStdioParams, type UpstreamParams } from '../client/params.ts';
import { rememberUpstreamSecrets } from '../client/secrets.ts';
import { VerdictCache } from '../client/verdicts.ts';
import type { Logger } from '../contract/logger.ts';
import type { PluginModule, PluginServer } from '../contract/plugin.ts';
import type { RequestExtra } from '../contract/tool.ts';
import { rememberSecretValues } from '../toollog/secretValues.ts';
import {
  type ListChange,
  ListChangeWatcher,
  type Snapshot,
  snapshotFrom,
} from './upstreamChanges.ts';
import { type UpstreamCredentialSettings, UpstreamCredentials } from './upstreamCredentials.ts';
import { listEverything, mirror, type Route } from './upstreamMirror.ts';
import type { SkillOffers } from './upstreamSkillOrigins.ts';
import { type ReadUpstream, UpstreamSkills } from './upstreamSkills.ts';

export type { ListChange } from './upstreamChanges.ts';

export interface UpstreamPluginOptions extends Omit<UpstreamConnectionOptions, 'onListChanged'> {
  /**
   * Re-registers the plugin (a host passes its registry's `reloadPlugin`). Called when the
   * upstream's tools, resources or prompts really changed: the plugin lists them again over the
   * running connection and clients are told. Without it, the change is only logged.
   */
  reload?: (plugin: string) => Promise<unknown>;
  /** Told of every real change, after it was handled (for hosts that watch, and tests). */
  onListChanged?: (kind: ListKind, change: ListChange) => void;
  /** Per-user credentials of an HTTP upstream (`upstreamCredentials.ts`). */
  credentials?: UpstreamCredentialSettings;
  /** Closes a caller's own connection after this long unused. Default 5 minutes. */
  callerIdleMs?: number;
  /** The mirror's prefix, which its skills' names and URIs get (`upstreamSkills.ts`). */
  prefix?: string | false;
  /** Where its skills are served (the server's `skills`); without it they are only listed. */
  skillOffers?: SkillOffers;
}

/** A plugin module mirroring one upstream MCP server. */
export interface UpstreamPlugin extends PluginModule {
  readonly description: string;
  /** The connection of the latest `register()`, until `dispose()`. */
  readonly connection: UpstreamConnection | undefined;
  /** The upstream's skills as the latest `register()` mirrored them. */
  readonly skills: UpstreamSkills | undefined;
  /** Closes the connection, ending a stdio upstream and its children. Idempotent. */
  dispose(): Promise<void>;
}

/**
 * Era verdicts of every mirror in this process (keyed by upstream name and expanded params), so a
 * host that reloads a mirror with a new module — mcp-proxy does — does not probe again.
 */
const processVerdicts = new VerdictCache();

/**
 * @param name names the upstream in messages and logs ("upstream 'github' …").
 * @param params as written: `${VAR}` placeholders are expanded at each connect, never stored.
 */
export function upstreamPlugin(
  name: string,
  params: UpstreamParams,
  options: UpstreamPluginOptions = {},
): UpstreamPlugin {
  const { reload, onListChanged, callerIdleMs, prefix, skillOffers, ...rest } = options;
  const { credentials: _settings, ...connectionOptions } = rest;
  const credentials = credentialsFor(name, params, options);
  let connection: UpstreamConnection | undefined;
  let skills: UpstreamSkills | undefined;
  let callers: CallerConnections | undefined;
  let plugin = name;
  let logger: Logger | undefined;
  // The configured credentials, redacted from the tool-call logs while the plugin is loaded.
  let forgetSecrets = () => {};
  /** The latest mirror: settles when its lists are in (or failed). */
  let mirroring: Promise<Snapshot | undefined> = Promise.resolve(undefined);
  const changes = new ListChangeWatcher({
    name,
    connection: () => connection,
    mirrored: () => mirroring,
    logger: () => logger,
    plugin: () => plugin,
    reload,
    onListChanged,
  });
  // Handlers look the connection up at call time: a re-register (reload) replaces it.
  const current = (): UpstreamConnection => {
    if (!connection) throw new Error(`upstream '${name}' was unloaded`);
    return connection;
  };
  const route: Route = (ctx, work) =>
    credentials ? viaCaller({ name, credentials, callers }, ctx, work) : work(current());
  /** The listing connection (credentials that name no caller), remembering its secrets. */
  const open = async (log: Logger): Promise<UpstreamConnection> => {
    const listing = await listingSpec(name, credentials?.params ?? params, credentials, options);
    forgetSecrets = listing.forget;
    const shared = { verdicts: processVerdicts, ...connectionOptions, logger: log };
    if (credentials) {
      callers ??= new CallerConnections(name, listing.params, { ...shared, idleMs: callerIdleMs });
    }
    return new UpstreamConnection(name, listing.params, {
      ...shared,
      headers: listing.headers,
      onListChanged: (kind: ListKind) => changes.announced(kind),
    });
  };

  return {
    description: `MCP server: ${describeUpstream(params)}`,
    get connection() {
      return connection;
    },
    get skills() {
      return skills;
    },

    async register(server: PluginServer) {
      plugin = server.name;
      logger = connectionOptions.logger ?? server.logger;
      // Registering the same module again (a reload that keeps the module, or mcp-proxy's
      // stage-then-swap) re-lists over the running connection instead of starting a second
      // process; a connection that died restarts on first use anyway.
      const fresh = connection === undefined || connection.closed;
      if (fresh) {
        forgetSecrets();
        connection = await open(logger);
      }
      const active = connection as UpstreamConnection;
      const listed = listEverything(active, logger);
      mirroring = listed.then(snapshotFrom, () => undefined);
      try {
        const lists = await listed;
        mirror(server, active, lists, route, logger);
        const read = skillReads(active, route);
        skills = await UpstreamSkills.build(lists.skills, { name, prefix, read, logger });
        offerSkills(server, skills, skillOffers);
      } catch (error) {
        // Only a connection nobody else uses is closed; after an earlier successful register,
        // its entries may still be serving.
        if (fresh) {
          await active.close();
          connection = undefined;
        }
        throw error;
      }
    },

    async dispose() {
      changes.stop();
      skills = undefined;
      forgetSecrets();
      const closing = connection;
      connection = undefined;
      const closingCallers = callers;
      callers = undefined;
      await Promise.all([closing?.close(), closingCallers?.close()]);
    },
  };
}

/** Served while this registration is: withdrawn by its unload (`upstreamSkillOrigins.ts`). */
function offerSkills(server: PluginServer, skills: UpstreamSkills, offers?: SkillOffers): void {
  if (skills.entries.length > 0 && offers) server.onUnload(offers.offer(server.name, skills));
}

/** Skill files: entries are built once over the listing connection, a caller reads by its route. */
function skillReads(listing: UpstreamConnection, route: Route): ReadUpstream {
  return (uri, ctx) => {
    if (ctx === undefined) return listing.readResource({ uri });
    const extra = ctx as RequestExtra;
    return route(extra, (upstream) => upstream.readResource({ uri }, { signal: extra.signal }));
  };
}

/** The entry's per-user credentials, when it has any. */
function credentialsFor(name: string, params: UpstreamParams, options: UpstreamPluginOptions) {
  const settings = options.credentials;
  if (!settings || isStdioParams(params) || !UpstreamCredentials.needed(params, settings)) return;
  return new UpstreamCredentials(name, params, settings, options.env ?? process.env);
}

/**
 * Each call resolves the credentials for its caller and runs over the caller's own connection
 * (one shared key when no header names the caller).
 */
async function viaCaller<T>(
  mirror: { name: string; credentials: UpstreamCredentials; callers?: CallerConnections },
  ctx: RequestExtra,
  work: (connection: UpstreamConnection) => Promise<T>,
): Promise<T> {
  const { name, credentials, callers } = mirror;
  const headers = await credentials.headersFor(ctx);
  if (!callers) throw new Error(`upstream '${name}' was unloaded`);
  return callers.use(credentials.perPrincipal ? ctx.principal.id : '', headers, work);
}

/** The listing connection's headers, remembered for the logs' redaction until `forget()`. */
async function listingSpec(
  name: string,
  params: UpstreamParams,
  credentials: UpstreamCredentials | undefined,
  options: UpstreamPluginOptions,
) {
  const headers = credentials ? await credentials.listingHeaders() : {};
  const forgetConfigured = rememberUpstreamSecrets(name, params, options.env);
  const forgetResolved = rememberSecretValues(headers);
  const forget = () => {
    forgetConfigured();
    forgetResolved();
  };
  return { params, headers, forget };
}
