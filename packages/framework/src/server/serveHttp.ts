/**
 * Serving MCP over HTTP: Streamable HTTP at `/mcp` and each view at `/mcp/<name>` (plus legacy
 * SSE), or legacy SSE alone, on one node:http server. Apart from the assembly because the HTTP
 * stack loads only here, on first use: a server over stdio starts without it (cold start,
 * bench/startup.ts). Express and what is mounted on it (views, legacy SSE, the SDK's legacy
 * package) load later still, with the first request the fast lane does not serve, unless
 * middleware or extra routes must see every request.
 *
 * @module
 */
import type { Server as HttpServer, RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AccessControl } from '../access/access.ts';
import type { Logger } from '../contract/logger.ts';
import { PortInUseError } from '../health/index.ts';
import type { SessionHub } from '../session/hub.ts';
import type { ServerCounters } from '../session/stats.ts';
import type { CallerSlots } from '../transports/callerSlots.ts';
import type { RequestGuard } from '../transports/mcpHttpRequest.ts';
import type {
  MountedTransport,
  StreamableHttpEndpoint,
  StreamableHttpOptions,
} from '../transports/streamableHttp.ts';
import { listenLimitsOf, type ServerOptions } from './options.ts';

/** What serving HTTP needs from the assembled server. */
export interface HttpServing {
  readonly options: ServerOptions;
  readonly hub: SessionHub;
  readonly counters: ServerCounters;
  readonly logger: Logger;
  /** Views and policy: which views `/mcp/<name>` serves. */
  readonly access: AccessControl;
}

/**
 * What a started server holds open, for `close()` to take back. Filled while starting, so a start
 * that fails half-way (the port taken) still leaves what it opened to be closed.
 */
export interface OpenTransports {
  mounted: MountedTransport[];
  httpServer: HttpServer | undefined;
}

/** What serving needs from the first request on (Express is not among it: see {@link loadApp}). */
async function loadHttpStack() {
  const [
    { createServer: createHttpServer },
    { dnsRebindingGuard },
    { streamableHttpEndpoint },
    { withFastLane, onFirstRequest },
    { sessionSlots },
  ] = await Promise.all([
    import('node:http'),
    import('../transports/mcpHttpRequest.ts'),
    import('../transports/streamableHttp.ts'),
    import('../transports/fastLane.ts'),
    import('../transports/sessionTable.ts'),
  ]);
  return {
    createHttpServer,
    dnsRebindingGuard,
    streamableHttpEndpoint,
    withFastLane,
    onFirstRequest,
    sessionSlots,
  };
}

type HttpStack = Awaited<ReturnType<typeof loadHttpStack>>;

/** The MCP path of Streamable HTTP; each view is served below it, at `/mcp/<name>`. */
const MCP_PATH = '/mcp';

interface AppParts {
  guard: RequestGuard | undefined;
  /** The Streamable HTTP endpoint (`kind` http), also served by the fast lane. */
  endpoint: StreamableHttpEndpoint | undefined;
  endpointOptions: StreamableHttpOptions;
  slots: CallerSlots;
}

/**
 * The Express app with every MCP route: the endpoint, the views at `/mcp/<name>`, legacy SSE,
 * and the JSON-RPC error handler last. What it mounts is closed with the server.
 */
async function loadApp(
  { options, hub, counters, logger, access }: HttpServing,
  { guard, endpoint, endpointOptions, slots }: AppParts,
  open: OpenTransports,
): Promise<RequestListener> {
  const [
    { createHttpApp, jsonRpcErrorHandler },
    { mountStreamableHttp, streamableHttpEndpoint },
    { mountViewEndpoints },
    { mountSse },
  ] = await Promise.all([
    import('../transports/httpApp.ts'),
    import('../transports/streamableHttp.ts'),
    import('../transports/viewEndpoints.ts'),
    import('../transports/sse.ts'),
  ]);
  const app = createHttpApp({
    guard,
    middleware: options.httpMiddleware,
    configureApp: options.configureApp,
  });
  if (endpoint) {
    mountStreamableHttp(app, MCP_PATH, endpoint);
    // Each view at `/mcp/<name>`, through the app (OAuth, body parser), sharing the slots.
    open.mounted.push(
      mountViewEndpoints(app, {
        access,
        counters,
        endpointFor: (view) => streamableHttpEndpoint({ ...endpointOptions, view }),
      }),
    );
  }
  open.mounted.push(mountSse(app, { hub, counters, sessionSlots: slots }));
  app.use(jsonRpcErrorHandler(counters, logger));
  return app;
}

/**
 * The listener of the MCP routes. Without middleware or extra routes, the fast lane serves the
 * common requests to `/mcp` and the app is built for the first other one; with them, every
 * request goes through the app (they must see it), built before the first.
 */
async function mcpListener(
  kind: 'http' | 'sse',
  host: string,
  stack: HttpStack,
  serving: HttpServing,
  open: OpenTransports,
): Promise<RequestListener> {
  const { options, hub, counters, logger } = serving;
  const limits = {
    idleTimeoutSeconds: options.sessionIdleTimeout,
    maxSessions: options.maxSessions,
    maxSessionsPerCaller: options.maxSessionsPerCaller,
  };
  // One pool of session slots for Streamable HTTP and legacy SSE.
  const slots = stack.sessionSlots(limits);
  const endpointOptions: StreamableHttpOptions = {
    hub,
    counters,
    stateless: options.stateless,
    resumable: options.resumableStreams ?? true,
    limits,
    sessionSlots: slots,
    listenLimits: listenLimitsOf(options),
  };
  const guard = stack.dnsRebindingGuard(host, options.allowedHosts, counters);
  const endpoint = kind === 'http' ? stack.streamableHttpEndpoint(endpointOptions) : undefined;
  if (endpoint) open.mounted.push(endpoint);
  const parts = { guard, endpoint, endpointOptions, slots };
  const app = () => loadApp(serving, parts, open);
  const throughApp = Boolean(options.httpMiddleware?.length || options.configureApp);
  if (!endpoint || throughApp) return app();
  return stack.withFastLane(stack.onFirstRequest(app, counters, logger), {
    path: MCP_PATH,
    handle: endpoint.handle,
    guard,
    counters,
    logger,
  });
}

function listen(server: HttpServer, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new PortInUseError(port, host, 'MCP', 'choose another port')
          : error,
      );
    });
    server.listen(port, host, resolve);
  });
}

/** Starts serving `kind` over HTTP; resolves with the bound MCP URL. */
export async function serveHttp(
  kind: 'http' | 'sse',
  serving: HttpServing,
  open: OpenTransports,
): Promise<string> {
  const host = serving.options.host ?? '127.0.0.1';
  const stack = await loadHttpStack();
  const server = stack.createHttpServer(await mcpListener(kind, host, stack, serving, open));
  open.httpServer = server;
  await listen(server, serving.options.port ?? 0, host);
  const { port } = server.address() as AddressInfo;
  const hostInUrl = host.includes(':') ? `[${host}]` : host;
  const url = `http://${hostInUrl}:${port}${kind === 'http' ? '/mcp' : '/sse'}`;
  const views = serving.access.viewNames();
  if (kind === 'http' && views.length > 0)
    serving.logger.info(`serving views at ${url}/<name>: ${views.join(', ')}`);
  return url;
}

/** Stops listening and drops the open connections (idle keep-alive ones would hold it up). */
export function closeHttpServer(server: HttpServer): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
