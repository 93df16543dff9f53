/**
 * Serving MCP over HTTP: Streamable HTTP at `/mcp` and each view at `/mcp/<name>` (plus legacy
 * SSE), or legacy SSE alone, on one node:http server. Apart from the assembly because the HTTP stack — express, the SDK's node
 * transports, legacy SSE — loads only here, on first use: a server over stdio starts without it
 * (cold start, bench/startup.ts).
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
import type { MountedTransport, StreamableHttpOptions } from '../transports/streamableHttp.ts';
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

async function loadHttpStack() {
  const [
    { createServer: createHttpServer },
    { createHttpApp, jsonRpcErrorHandler },
    { mountSse },
    { mountStreamableHttp, streamableHttpEndpoint },
    { mountViewEndpoints },
    { withFastLane },
    { sessionSlots },
  ] = await Promise.all([
    import('node:http'),
    import('../transports/httpApp.ts'),
    import('../transports/sse.ts'),
    import('../transports/streamableHttp.ts'),
    import('../transports/viewEndpoints.ts'),
    import('../transports/fastLane.ts'),
    import('../transports/sessionTable.ts'),
  ]);
  return {
    createHttpServer,
    createHttpApp,
    jsonRpcErrorHandler,
    mountSse,
    mountStreamableHttp,
    streamableHttpEndpoint,
    mountViewEndpoints,
    withFastLane,
    sessionSlots,
  };
}

type HttpStack = Awaited<ReturnType<typeof loadHttpStack>>;

/** The app with the MCP routes mounted, and the listener that serves it. */
function mountMcp(
  kind: 'http' | 'sse',
  host: string,
  stack: HttpStack,
  { options, hub, counters, logger, access }: HttpServing,
  open: OpenTransports,
): RequestListener {
  const { app, guard } = stack.createHttpApp({
    host,
    allowedHosts: options.allowedHosts,
    middleware: options.httpMiddleware,
    configureApp: options.configureApp,
    counters,
    logger,
  });
  let listener: RequestListener = app;
  const limits = {
    idleTimeoutSeconds: options.sessionIdleTimeout,
    maxSessions: options.maxSessions,
    maxSessionsPerCaller: options.maxSessionsPerCaller,
  };
  // One pool of session slots for Streamable HTTP and legacy SSE.
  const slots = stack.sessionSlots(limits);
  if (kind === 'http') {
    const endpointOptions: StreamableHttpOptions = {
      hub,
      counters,
      stateless: options.stateless,
      resumable: options.resumableStreams ?? true,
      limits,
      sessionSlots: slots,
      listenLimits: listenLimitsOf(options),
    };
    const endpoint = stack.mountStreamableHttp(app, endpointOptions);
    open.mounted.push(endpoint);
    // Each view at `/mcp/<name>`, through the app (OAuth, body parser), sharing the slots.
    open.mounted.push(
      stack.mountViewEndpoints(app, {
        access,
        counters,
        endpointFor: (view) => stack.streamableHttpEndpoint({ ...endpointOptions, view }),
      }),
    );
    // Only while the app holds nothing of the caller's: middleware (OAuth) and whatever
    // `configureApp` adds must see every request, so then all of them go through the app.
    if (!options.httpMiddleware?.length && !options.configureApp) {
      listener = stack.withFastLane(app, {
        path: endpoint.path,
        handle: endpoint.handle,
        guard,
        counters,
        logger,
      });
    }
  }
  open.mounted.push(stack.mountSse(app, { hub, counters, sessionSlots: slots }));
  app.use(stack.jsonRpcErrorHandler(counters, logger));
  return listener;
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
  const server = stack.createHttpServer(mountMcp(kind, host, stack, serving, open));
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
