/**
 * Server assembly: one catalog, a plugin registry feeding it, a session hub following it, and a
 * transport (stdio, Streamable HTTP + legacy SSE, or SSE alone).
 *
 * @example
 * ```ts
 * const config = loadConfig({ file: 'mcpbox.yaml' });
 * const server = createServer(config);
 * server.registerTool('hello', { inputSchema: { name: z.string() } }, ({ name }) => `Hello, ${name}!`);
 * await server.start();
 * ```
 *
 * @module
 */
import type { CallToolResult, Transport } from '@modelcontextprotocol/server';
import { AccessControl, unknownViewMessage } from './access/access.ts';
import { mayUsePluginIn } from './access/pluginUse.ts';
import { CallApprovals } from './approvals/callApproval.ts';
import { OperatorDesk } from './approvals/desk.ts';
import type { GrantBook } from './approvals/grants.ts';
import { processGrants } from './approvals/processGrants.ts';
import type { ApprovalDesk } from './approvals/types.ts';
import { AuditTrail } from './audit/trail.ts';
import { Catalog } from './catalog/catalog.ts';
import { createCatalogView } from './catalog/catalogView.ts';
import { ToolCallDispatcher, type ToolCallInterceptor } from './catalog/toolCalls.ts';
import { toolListing } from './catalog/toolListing.ts';
import type { Config } from './config/types.ts';
import type { CatalogView } from './contract/catalogView.ts';
import type { Logger } from './contract/logger.ts';
import type { PluginServer } from './contract/plugin.ts';
import type { SessionClosedSource } from './contract/session.ts';
import type { ToolContext } from './contract/tool.ts';
import { McpboxError } from './errors.ts';
import { processGateStore } from './gate/store.ts';
import type { Limiter } from './limits/limiter.ts';
import { openLimiter } from './limits/store.ts';
import { createLogger } from './logging/index.ts';
import { openPinBook } from './pins/index.ts';
import type { PinBoard } from './pins/types.ts';
import { PluginRegistry } from './plugins/registry.ts';
import { StagingServer } from './plugins/staging.ts';
import { openResults, registerResultReaders } from './results/index.ts';
import { listenLimitsOf, resolveServerOptions, type ServerOptions } from './server/options.ts';
import { closeHttpServer, type OpenTransports, serveHttp } from './server/serveHttp.ts';
import { SessionHub } from './session/hub.ts';
import type { McpSession } from './session/session.ts';
import { createCounters, type ServerCounters } from './session/stats.ts';
import { SkillRegistry } from './skills/registry.ts';
import { serveSkills } from './skills/serve.ts';
import { processRecords } from './state/process.ts';
import { OtlpAuditExport } from './telemetry/auditLogs.ts';
import {
  flushTracing,
  resolveLogExport,
  resolveTelemetry,
  startTracing,
  type TelemetrySettings,
  toolCallSpan,
  tracingStarted,
} from './telemetry/index.ts';
import { serveStdio } from './transports/stdio.ts';

export { type ServerOptions, serverOptionsFromConfig } from './server/options.ts';

/** Owner of tools registered straight on the server rather than by a plugin. */
export const BUILTIN_PLUGIN = 'server';

/** Registration calls straight on the server; each is committed at once. */
type Registrations = Pick<
  PluginServer,
  'registerTool' | 'tool' | 'registerResource' | 'resource' | 'registerPrompt' | 'prompt'
>;

export interface McpboxServer extends Registrations {
  readonly options: Readonly<ServerOptions>;
  readonly catalog: Catalog;
  /** The view plugins get as `server.catalog`: tools, search, calls as a caller, changes. */
  readonly catalogView: CatalogView;
  readonly registry: PluginRegistry;
  readonly sessions: SessionHub;
  /** Views and policy: who sees and may call what (replace them with `access.update`). */
  readonly access: AccessControl;
  /** Rate limits, quotas and concurrency caps per principal (`limits:`); none when not set. */
  readonly limits: Limiter | undefined;
  /** Live counters for the health endpoints. */
  readonly stats: ServerCounters;
  /** Where decisions are recorded (pins, approvals, operations); a log attaches when configured. */
  readonly audit: AuditTrail;
  /**
   * Calls waiting for an operator's approval (policy `approve` rules with `approver: operator`),
   * on every replica: list and answer them here (console, REST, CLI, approval WebSocket).
   */
  readonly approvals: ApprovalDesk;
  /**
   * The grant book behind every approval: `issue` a single-use grant for one exact call ahead of
   * it (its token goes in the call's `_meta["io.mcpbox/grant"]`).
   */
  readonly grants: GrantBook;
  /** Pinned definitions: what is pinned and what waits, approved or rejected here. */
  readonly pins: PinBoard;
  /** The skills served (SEP-2640), by origin: add and remove origins here. */
  readonly skills: SkillRegistry;
  /** The bound MCP URL once an HTTP transport has started. */
  readonly url: string | undefined;
  /** Wraps every tool call (plugins, mirrored servers, built-ins). Returns a remover. */
  addToolCallInterceptor(interceptor: ToolCallInterceptor): () => void;
  /**
   * Calls a catalog tool on behalf of the caller whose context this is — argument validation,
   * every interceptor (logs, pre-call validator, TOTP gate) with the caller's own identity, its
   * progress and cancellation. For tools that call tools (`proxy__run`).
   */
  callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    ctx: ToolContext,
    options?: { via?: 'code' },
  ): Promise<CallToolResult>;
  /**
   * Serves one session over a transport you made (e.g. `InMemoryTransport`), as a 2025-era
   * connection (`initialize`): a 2026 client is served by the stdio and HTTP entries, which
   * learn its era from the opening exchange.
   */
  connect(transport: Transport): Promise<McpSession>;
  /** Starts the configured transport; for HTTP resolves with the bound MCP URL. */
  start(): Promise<string | undefined>;
  /** Resolves when the server has closed (or the stdio client has gone). */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/** The parts a server is made of, wired to one another but not yet serving. */
interface ServerParts {
  readonly options: ServerOptions;
  readonly logger: Logger;
  readonly stats: ServerCounters;
  readonly catalog: Catalog;
  readonly dispatcher: ToolCallDispatcher;
  readonly access: AccessControl;
  readonly limits: Limiter | undefined;
  readonly audit: AuditTrail;
  readonly approvals: OperatorDesk;
  readonly grants: GrantBook;
  readonly catalogView: CatalogView;
  readonly registry: PluginRegistry;
  readonly sessions: SessionHub;
  readonly skills: SkillRegistry;
  readonly pins: PinBoard & { close(): Promise<void> };
  readonly onSessionClosed: SessionClosedSource;
  readonly telemetry: TelemetrySettings | undefined;
  /** Settles when the tracing SDK has loaded; `start()` waits for it. */
  readonly tracingReady: Promise<void> | undefined;
  /** With OTLP on, the audit trail's records also go out as log records. */
  readonly auditExport: OtlpAuditExport | undefined;
}

/** The session hub, serving the catalog and the skills; gate unlocks go with their session. */
function openSessionHub(
  options: ServerOptions,
  parts: Pick<ServerParts, 'catalog' | 'dispatcher' | 'access' | 'stats' | 'skills' | 'logger'>,
): SessionHub {
  const { catalog, skills, logger } = parts;
  const sessions = new SessionHub({
    info: { name: options.name ?? 'mcpbox', version: options.version ?? '0.1.0' },
    instructions: options.instructions,
    ...parts,
    counters: parts.stats,
    requestStateKey: options.requestStateKey,
    skills: serveSkills({ registry: skills, catalog, logger, always: options.proxy !== undefined }),
  });
  sessions.onSessionClosed(({ connectionId, sessionId }) => {
    processGateStore.forgetCaller(`connection:${connectionId}`);
    if (sessionId) processGateStore.forgetCaller(`session:${sessionId}`);
  });
  return sessions;
}

/** Catalog, dispatcher (with traces when configured), plugin registry and session hub. */
function assembleParts(options: ServerOptions): ServerParts {
  const logger = options.logger ?? createLogger('server');
  const stats = createCounters();
  const catalog = new Catalog();
  const logExport = resolveLogExport(options.otel, process.env, options.name ?? 'mcpbox');
  const auditExport = logExport && new OtlpAuditExport(logExport);
  const audit = new AuditTrail(auditExport);
  // Every plugin's batch passes the pin book's screen on its way into the catalog.
  const pins = openPinBook({
    catalog,
    settings: options.pins,
    cluster: options.cluster,
    audit,
    logger,
  });
  // A rule that does not compile stops the start here, naming the rule.
  const access = new AccessControl(options.access);
  catalog.onChange(() => access.forget());
  const limits = openLimiter(options.limits, options.cluster, logger);
  // Grants, waiting calls and stored results live in the process's state (the cluster's Redis).
  const book = processGrants();
  const approvals = new OperatorDesk(processRecords, book);
  const dispatcher = new ToolCallDispatcher(catalog, {
    access,
    limiter: limits,
    approvals: new CallApprovals(book, approvals, audit),
    results: openResults(options.resultPreview),
  });
  // Traces only when configured: the SDK loads in the background and start() waits for it. The
  // span interceptor goes first, so its span holds the other interceptors' work.
  const telemetry = resolveTelemetry(options.otel, process.env, options.name ?? 'mcpbox');
  const tracingReady = telemetry ? startTracing(telemetry) : undefined;
  tracingReady?.catch(() => undefined); // reported by start()
  if (telemetry) dispatcher.addInterceptor(toolCallSpan);
  const catalogView = createCatalogView(catalog, dispatcher, access);
  const listing = toolListing({
    codeMode: options.codeMode,
    listedInCodeMode: options.listedInCodeMode,
    deferLoading: options.deferLoading,
  });
  if (listing) catalog.setToolListing(listing);
  // Plugins register before any session exists; the hub below is created right after.
  const onSessionClosed: SessionClosedSource = (listener) => sessions.onSessionClosed(listener);
  const mayUse = mayUsePluginIn(access, () => catalog.tools());
  const skills = new SkillRegistry({ logger, mayUse });
  const registry = new PluginRegistry({
    catalog,
    view: catalogView,
    pluginDirs: options.pluginDirs ? [...options.pluginDirs] : [],
    proxy: options.proxy,
    cluster: options.cluster,
    onSessionClosed,
    pins,
    audit,
    skills,
  });
  const sessions = openSessionHub(options, { catalog, dispatcher, access, stats, skills, logger });
  return {
    options,
    logger,
    stats,
    catalog,
    dispatcher,
    access,
    limits,
    audit,
    approvals,
    grants: book,
    catalogView,
    registry,
    sessions,
    skills,
    pins,
    onSessionClosed,
    telemetry,
    tracingReady,
    auditExport,
  };
}

/**
 * The registration calls straight on the server: each is a one-entry batch, committed at once
 * (collisions throw).
 */
function directRegistrations(parts: ServerParts): Registrations {
  const { catalog, catalogView, logger, onSessionClosed } = parts;
  const direct = <K extends keyof Registrations>(method: K) =>
    ((...args: unknown[]) => {
      const staging = new StagingServer({
        plugin: BUILTIN_PLUGIN,
        catalog,
        view: catalogView,
        logger,
        onSessionClosed,
      });
      const handle = (staging[method] as (...a: unknown[]) => unknown)(...args);
      staging.commit();
      return handle;
    }) as Registrations[K];
  return {
    registerTool: direct('registerTool'),
    tool: direct('tool'),
    registerResource: direct('registerResource'),
    resource: direct('resource'),
    registerPrompt: direct('registerPrompt'),
    prompt: direct('prompt'),
  };
}

/** The view a stdio connection is served, checked against the configured views. */
function stdioView({ options, access }: ServerParts): string | undefined {
  if (options.view === undefined) return undefined;
  if (access.view(options.view)) return options.view;
  throw new McpboxError('UNKNOWN_VIEW', unknownViewMessage(options.view, access.viewNames()));
}

/** Starts the configured transport, holding what it opens in `open`; the bound URL for HTTP. */
async function startTransport(
  parts: ServerParts,
  open: OpenTransports,
  onClientGone: () => void,
): Promise<string | undefined> {
  const { options, sessions, logger } = parts;
  const kind = options.transport ?? 'stdio';
  if (kind === 'stdio') {
    open.mounted.push(
      await serveStdio({
        hub: sessions,
        logger,
        maxMessageBytes: options.maxMessageBytes,
        listenLimits: listenLimitsOf(options),
        onClientGone,
        view: stdioView(parts),
      }),
    );
    logger.info('serving MCP over stdio');
    return undefined;
  }
  const url = await serveHttp(
    kind,
    { options, hub: sessions, counters: parts.stats, logger, access: parts.access },
    open,
  );
  logger.info(`serving MCP at ${url}`);
  return url;
}

/** Closes the transports, then the sessions, then the HTTP listener; flushes traces last. */
async function shutDown(parts: ServerParts, open: OpenTransports): Promise<void> {
  const transports = open.mounted;
  open.mounted = [];
  await Promise.allSettled(transports.map((t) => t.close()));
  await parts.sessions.close();
  const httpServer = open.httpServer;
  if (httpServer) {
    open.httpServer = undefined;
    await closeHttpServer(httpServer);
  }
  await parts.pins.close();
  if (parts.telemetry) await flushTracing();
  await parts.auditExport?.flush();
}

export function createServer(
  input: ServerOptions | Config = {},
  overrides: ServerOptions = {},
): McpboxServer {
  const parts = assembleParts(resolveServerOptions(input, overrides));
  const { options, catalog, catalogView, registry, sessions, stats, dispatcher, access, limits } =
    parts;
  const open: OpenTransports = { mounted: [], httpServer: undefined };
  let url: string | undefined;
  let started = false;
  let resolveClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });

  const server: McpboxServer = {
    options,
    catalog,
    catalogView,
    registry,
    sessions,
    access,
    limits,
    stats,
    audit: parts.audit,
    approvals: parts.approvals,
    grants: parts.grants,
    pins: parts.pins,
    skills: parts.skills,
    get url() {
      return url;
    },
    closed,
    ...directRegistrations(parts),
    addToolCallInterceptor: (interceptor) => dispatcher.addInterceptor(interceptor),
    callTool: (name, args, ctx, options) => dispatcher.call(name, args, ctx, options),

    async connect(transport) {
      const session = sessions.open({ era: 'legacy' });
      await session.server.connect(transport);
      return session;
    },

    async start() {
      if (started) throw new McpboxError('ALREADY_STARTED', 'server already started');
      started = true;
      if (parts.tracingReady) await tracingStarted(parts.tracingReady);
      url = await startTransport(parts, open, () => void server.close());
      return url;
    },

    async close() {
      await shutDown(parts, open);
      resolveClosed();
    },
  };
  if (dispatcher.results) registerResultReaders(server, dispatcher.results);
  return server;
}
