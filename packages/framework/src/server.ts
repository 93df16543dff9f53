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
import type { Server as HttpServer, RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CallToolResult, Transport } from '@modelcontextprotocol/server';
import type { Express, RequestHandler } from 'express';
import { Catalog } from './catalog/catalog.ts';
import { createCatalogView } from './catalog/catalogView.ts';
import { ToolCallDispatcher, type ToolCallInterceptor } from './catalog/toolCalls.ts';
import { toolListing } from './catalog/toolListing.ts';
import type { ClusterLink } from './cluster/link.ts';
import type { CodeMode, Config, TransportKind } from './config/types.ts';
import type { CatalogView } from './contract/catalogView.ts';
import type { Logger } from './contract/logger.ts';
import type { PluginServer, ProxyCommands } from './contract/plugin.ts';
import type { ToolContext } from './contract/tool.ts';
import { McpboxError } from './errors.ts';
import { processGateStore } from './gate/store.ts';
import { PortInUseError } from './health/index.ts';
import { createLogger } from './logging/index.ts';
import { PluginRegistry } from './plugins/registry.ts';
import { type SessionClosedSource, StagingServer } from './plugins/staging.ts';
import { SessionHub } from './session/hub.ts';
import type { McpSession } from './session/session.ts';
import { createCounters, type ServerCounters } from './session/stats.ts';
import {
  flushTracing,
  type OtelConfig,
  resolveTelemetry,
  startTracing,
  toolCallSpan,
} from './telemetry/index.ts';
import type { ListenLimits } from './transports/listenLimits.ts';
import { serveStdio } from './transports/stdio.ts';
import type { MountedTransport } from './transports/streamableHttp.ts';

/** Owner of tools registered straight on the server rather than by a plugin. */
export const BUILTIN_PLUGIN = 'server';

export interface ServerOptions {
  /** Announced to clients. Default `mcpbox`. */
  name?: string;
  /** Default `0.1.0`. */
  version?: string;
  /** Sent to clients at initialization. */
  instructions?: string;
  /**
   * `stdio` (default); `http` serves Streamable HTTP at `/mcp` and legacy SSE at `/sse` +
   * `/messages`; `sse` serves only the legacy pair.
   */
  transport?: TransportKind;
  /** Default `127.0.0.1`: only this machine can connect. */
  host?: string;
  /** Default 0: any free port (the bound URL comes back from `start()`). */
  port?: number;
  /**
   * Streamable HTTP without session ids: a fresh SDK server per request. Default `false`.
   * Requests from server to client mid-call (sampling, elicitation) need a session and do not
   * work stateless: the client's answer arrives in another request, at another server.
   */
  stateless?: boolean;
  /**
   * Keep each 2025 session's recent SSE events so a client resumes a broken stream with
   * `Last-Event-ID` (and gets `retry:` priming events). Default `true`. Off saves the SDK's
   * priming-event round on every streamed response (~1.4 ms per call here, measured).
   */
  resumableStreams?: boolean;
  /** Seconds a 2025 HTTP session may stay silent before it is closed; default 1800, 0 never. */
  sessionIdleTimeout?: number;
  /** Open 2025 HTTP and legacy SSE sessions at most (503 past it); default 1000, 0 no cap. */
  maxSessions?: number;
  /** Open sessions per caller (principal, else address; 429 past it); default 100, 0 no cap. */
  maxSessionsPerCaller?: number;
  /** Open 2026 `subscriptions/listen` streams over HTTP at most; default 512, 0 no cap. */
  maxListens?: number;
  /** Open listen streams per caller (over stdio: the connection); default 32, 0 no cap. */
  maxListensPerCaller?: number;
  /** Largest stdio message in bytes; default 64 MiB. */
  maxMessageBytes?: number;
  /** Host names accepted in `Host`/`Origin`; default the loopback names for a loopback bind. */
  allowedHosts?: string[];
  /** Runs before the MCP routes (e.g. OAuth bearer checks). */
  httpMiddleware?: RequestHandler[];
  /** Adds routes (e.g. `/.well-known/…`) to the HTTP app. */
  configureApp?: (app: Express) => void;
  logger?: Logger;
  /** Directories searched for plugins, in order. */
  pluginDirs?: string[];
  /** Handed to plugins as `server.proxy`; set by `mcp-proxy` only. */
  proxy?: ProxyCommands;
  /**
   * `on`: `tools/list` shows only the `code_mode` plugin's tools and those of
   * `listedInCodeMode`; every tool stays callable. `both`/`off` (default): every tool.
   */
  codeMode?: CodeMode;
  /** Plugins whose tools stay listed with `codeMode: 'on'` (mcp-proxy: its `proxy__*` tools). */
  listedInCodeMode?: string[];
  /**
   * Tools listed with the deferred-loading hint `_meta.defer_loading: true`: plugin names, tool
   * names, or globs over `tool` and `plugin.tool`.
   */
  deferLoading?: string[];
  /**
   * Key sealing 2026 `requestState` (HMAC); default a random key per process. Replicas behind
   * one load balancer share one (cluster mode), so a round trip may land on any of them.
   */
  requestStateKey?: string;
  /** Cluster mode: the link to the cluster's Redis, handed to plugins as `server.cluster`. */
  cluster?: ClusterLink;
  /**
   * OpenTelemetry traces over OTLP/HTTP; without an endpoint here or in `OTEL_EXPORTER_OTLP_*`,
   * off (and the SDK never loaded).
   */
  otel?: OtelConfig;
}

/** Maps the resolved config file (snake_case) to server options. */
export function serverOptionsFromConfig(config: Config): ServerOptions {
  return {
    name: config.server_name,
    version: config.version,
    instructions: config.instructions,
    transport: config.transport,
    host: config.host,
    port: config.port,
    stateless: config.stateless,
    resumableStreams: config.resumable_streams,
    sessionIdleTimeout: config.session_idle_timeout,
    maxSessions: config.max_sessions,
    maxSessionsPerCaller: config.max_sessions_per_caller,
    maxListens: config.max_listens,
    maxListensPerCaller: config.max_listens_per_caller,
    maxMessageBytes: config.max_message_size,
    pluginDirs: config.plugin_dirs,
    codeMode: config.code_mode,
    deferLoading: [
      ...config.defer_loading,
      ...Object.entries(config.plugins)
        .filter(([, entry]) => entry.defer_loading === true)
        .map(([name]) => name),
    ],
    otel: config.otel,
  };
}

function listenLimitsOf(options: ServerOptions): ListenLimits {
  return { maxListens: options.maxListens, maxListensPerCaller: options.maxListensPerCaller };
}

function isConfig(value: ServerOptions | Config): value is Config {
  return 'server_name' in value;
}

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
  /** Live counters for the health endpoints. */
  readonly stats: ServerCounters;
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

export function createServer(
  input: ServerOptions | Config = {},
  overrides: ServerOptions = {},
): McpboxServer {
  const options: ServerOptions = {
    ...(isConfig(input) ? serverOptionsFromConfig(input) : input),
    ...overrides,
  };
  const logger = options.logger ?? createLogger('server');
  const stats = createCounters();
  const catalog = new Catalog();
  const dispatcher = new ToolCallDispatcher(catalog);
  // Traces only when configured: the SDK loads in the background and start() waits for it. The
  // span interceptor goes first, so its span holds the other interceptors' work.
  const telemetry = resolveTelemetry(options.otel, process.env, options.name ?? 'mcpbox');
  const tracingReady = telemetry ? startTracing(telemetry) : undefined;
  tracingReady?.catch(() => undefined); // reported by start()
  if (telemetry) dispatcher.addInterceptor(toolCallSpan);
  const catalogView = createCatalogView(catalog, dispatcher);
  const listing = toolListing({
    codeMode: options.codeMode,
    listedInCodeMode: options.listedInCodeMode,
    deferLoading: options.deferLoading,
  });
  if (listing) catalog.setToolListing(listing);
  // Plugins register before any session exists; the hub below is created right after.
  const onSessionClosed: SessionClosedSource = (listener) => sessions.onSessionClosed(listener);
  const registry = new PluginRegistry({
    catalog,
    view: catalogView,
    pluginDirs: options.pluginDirs ? [...options.pluginDirs] : [],
    proxy: options.proxy,
    cluster: options.cluster,
    onSessionClosed,
  });
  const sessions: SessionHub = new SessionHub({
    info: { name: options.name ?? 'mcpbox', version: options.version ?? '0.1.0' },
    instructions: options.instructions,
    catalog,
    dispatcher,
    counters: stats,
    requestStateKey: options.requestStateKey,
  });

  // Gate unlocks belong to a session or connection: they go when it goes.
  sessions.onSessionClosed(({ connectionId, sessionId }) => {
    processGateStore.forgetCaller(`connection:${connectionId}`);
    if (sessionId) processGateStore.forgetCaller(`session:${sessionId}`);
  });

  // Each direct registration is a one-entry batch, committed at once (collisions throw).
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

  let mounted: MountedTransport[] = [];
  let httpServer: HttpServer | undefined;
  let url: string | undefined;
  let started = false;
  let resolveClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });

  async function startHttp(kind: 'http' | 'sse'): Promise<string> {
    const host = options.host ?? '127.0.0.1';
    // The HTTP stack (express, the SDK's node transports, legacy SSE) loads only for HTTP: a
    // server over stdio starts without it (cold start, bench/startup.ts).
    const [
      { createServer: createHttpServer },
      { createHttpApp, jsonRpcErrorHandler },
      { mountSse },
      { mountStreamableHttp },
      { withFastLane },
      { sessionSlots },
    ] = await Promise.all([
      import('node:http'),
      import('./transports/httpApp.ts'),
      import('./transports/sse.ts'),
      import('./transports/streamableHttp.ts'),
      import('./transports/fastLane.ts'),
      import('./transports/sessionTable.ts'),
    ]);
    const { app, guard } = createHttpApp({
      host,
      allowedHosts: options.allowedHosts,
      middleware: options.httpMiddleware,
      configureApp: options.configureApp,
      counters: stats,
      logger,
    });
    let listener: RequestListener = app;
    const limits = {
      idleTimeoutSeconds: options.sessionIdleTimeout,
      maxSessions: options.maxSessions,
      maxSessionsPerCaller: options.maxSessionsPerCaller,
    };
    // One pool of session slots for Streamable HTTP and legacy SSE.
    const slots = sessionSlots(limits);
    if (kind === 'http') {
      const endpoint = mountStreamableHttp(app, {
        hub: sessions,
        counters: stats,
        stateless: options.stateless,
        resumable: options.resumableStreams ?? true,
        limits,
        sessionSlots: slots,
        listenLimits: listenLimitsOf(options),
      });
      mounted.push(endpoint);
      // Only while the app holds nothing of the caller's: middleware (OAuth) and whatever
      // `configureApp` adds must see every request, so then all of them go through the app.
      if (!options.httpMiddleware?.length && !options.configureApp) {
        listener = withFastLane(app, {
          path: endpoint.path,
          handle: endpoint.handle,
          guard,
          counters: stats,
          logger,
        });
      }
    }
    mounted.push(mountSse(app, { hub: sessions, counters: stats, sessionSlots: slots }));
    app.use(jsonRpcErrorHandler(stats, logger));

    const server = createHttpServer(listener);
    httpServer = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) => {
        reject(
          error.code === 'EADDRINUSE'
            ? new PortInUseError(options.port ?? 0, host, 'MCP', 'choose another port')
            : error,
        );
      });
      server.listen(options.port ?? 0, host, resolve);
    });
    const { port } = server.address() as AddressInfo;
    const hostInUrl = host.includes(':') ? `[${host}]` : host;
    return `http://${hostInUrl}:${port}${kind === 'http' ? '/mcp' : '/sse'}`;
  }

  const server: McpboxServer = {
    options,
    catalog,
    catalogView,
    registry,
    sessions,
    stats,
    get url() {
      return url;
    },
    closed,
    registerTool: direct('registerTool'),
    tool: direct('tool'),
    registerResource: direct('registerResource'),
    resource: direct('resource'),
    registerPrompt: direct('registerPrompt'),
    prompt: direct('prompt'),
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
      if (tracingReady) {
        await tracingReady.catch((error) => {
          throw new McpboxError(
            'TELEMETRY_FAILED',
            `cannot start OpenTelemetry tracing: ${error instanceof Error ? error.message : String(error)}`,
          );
        });
      }
      const kind = options.transport ?? 'stdio';
      if (kind === 'stdio') {
        mounted.push(
          await serveStdio({
            hub: sessions,
            logger,
            maxMessageBytes: options.maxMessageBytes,
            listenLimits: listenLimitsOf(options),
            onClientGone: () => void server.close(),
          }),
        );
        logger.info('serving MCP over stdio');
        return undefined;
      }
      url = await startHttp(kind);
      logger.info(`serving MCP at ${url}`);
      return url;
    },

    async close() {
      const transports = mounted;
      mounted = [];
      await Promise.allSettled(transports.map((t) => t.close()));
      await sessions.close();
      if (httpServer) {
        const s = httpServer;
        httpServer = undefined;
        await new Promise<void>((resolve) => {
          s.close(() => resolve());
          s.closeAllConnections();
        });
      }
      if (telemetry) await flushTracing();
      resolveClosed();
    },
  };
  return server;
}
