/**
 * The health HTTP server: its own port (default MCP port + 1), bound to 127.0.0.1 unless told
 * otherwise, answering only GET/HEAD with JSON:
 *
 * - `/health` → `{status:"ok", timestamp}` — the process is up.
 * - `/health/detailed` → uptime, `started_at` and the MCP server's live counters
 *   (connections, requests, errors, last_request), read from its stats object at each request.
 * - `/health/ready` → `{ready:true}`, or 503 `{ready:false, error}` until the configured plugins
 *   are loaded.
 * - `/health/plugins` → the plugin inventory the program supplies.
 *
 * Extra routes (e.g. `/metrics`) plug in through `routes` or {@link HealthServer.addRoute}.
 *
 * None of these has authentication. On loopback, requests must be addressed to a loopback name
 * (DNS-rebinding protection, `http/guard.ts`: a web page cannot read the inventory or the
 * metrics); bound beyond loopback, the server warns at start that everything it serves is open to
 * whoever can reach that address.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rebindingCheck } from '../http/guard.ts';
import { sendJson } from '../http/json.ts';
import { isLoopbackHost } from '../http/loopback.ts';
import { createLogger, type Logger } from '../logging/index.ts';

/** Live counters of an MCP server. Read at every request, so pass the object, not a copy. */
export interface ServerStats {
  connections: number;
  requests: number;
  errors: number;
  /** When the last MCP request arrived; `null` before the first one. */
  last_request: Date | string | number | null | undefined;
  sessions?: number;
  sessions_reaped?: number;
  sessions_refused?: number;
}

export type Readiness = { ready: true } | { ready: false; error: string };

/** A route handler; its return value is ignored (a promise is awaited for error handling). */
export type HealthRoute = (req: IncomingMessage, res: ServerResponse) => unknown;

export interface HealthServerOptions {
  /** Port to listen on; 0 picks a free one (see {@link HealthServer.port}). */
  port: number;
  /** Address to bind. Default `127.0.0.1`. */
  host?: string;
  /** The MCP server's stats object, or a function returning it. */
  stats: ServerStats | (() => ServerStats);
  /** Whether the program is ready to serve. Default: always ready. */
  readiness?: () => Readiness;
  /** JSON served at `/health/plugins`. Default `{plugins: []}`. */
  plugins?: () => unknown;
  /** Extra exact-path GET routes, e.g. `{ '/metrics': handler }`. */
  routes?: Record<string, HealthRoute>;
  /** Start of uptime. Default: now. */
  startedAt?: Date;
  /** How users set `host`, named in the warning for a bind beyond loopback. */
  hostSetting?: string;
}

export interface HealthServer {
  /** `http://host:port` actually bound. */
  url: string;
  port: number;
  host: string;
  /** Adds (or replaces) an exact-path route after start. */
  addRoute(path: string, handler: HealthRoute): void;
  close(): Promise<void>;
}

/** The port is taken; the message says which and how to choose another. */
export class PortInUseError extends Error {
  readonly code = 'PORT_IN_USE';
  constructor(
    readonly port: number,
    readonly host: string,
    what: string,
    hint: string,
  ) {
    super(`${what} port ${port} on ${host} is already in use (${hint})`);
    this.name = 'PortInUseError';
  }
}

const log = createLogger('health');

/** The settings of mcp-factory and mcp-proxy (and the framework's config) that move the server. */
const HOST_SETTING = '--health-host (health_host)';

/** Says, once at start, that a bind beyond loopback opens every endpoint to other machines. */
function warnIfExposed(host: string, setting: string, logger: Logger): void {
  if (isLoopbackHost(host)) return;
  logger.warn(
    `the health server listens on ${host} (${setting}), beyond loopback: anyone who can reach ` +
      'that address can read /health/* (plugin names and their tools, request counters) and ' +
      '/metrics (when metrics are on) without authentication. Bind it to 127.0.0.1 unless a ' +
      'probe or scraper on another machine needs it, and keep its port behind a firewall.',
  );
}

function isoOrNull(value: ServerStats['last_request']): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  return new Date(value).toISOString();
}

/** The built-in routes, then the program's own (which may replace them). */
function healthRoutes(options: HealthServerOptions): Map<string, HealthRoute> {
  const {
    stats,
    readiness = () => ({ ready: true }) as const,
    plugins = () => ({ plugins: [] }),
    startedAt = new Date(),
  } = options;
  const readStats = typeof stats === 'function' ? stats : () => stats;
  return new Map<string, HealthRoute>([
    [
      '/health',
      (_req, res) => sendJson(res, 200, { status: 'ok', timestamp: new Date().toISOString() }),
    ],
    [
      '/health/detailed',
      (_req, res) => {
        const current = readStats();
        sendJson(res, 200, {
          status: 'ok',
          timestamp: new Date().toISOString(),
          started_at: startedAt.toISOString(),
          uptime_seconds: Math.round((Date.now() - startedAt.getTime()) / 100) / 10,
          connections: current.connections,
          sessions: current.sessions ?? current.connections,
          sessions_reaped: current.sessions_reaped ?? 0,
          sessions_refused: current.sessions_refused ?? 0,
          requests: current.requests,
          errors: current.errors,
          last_request: isoOrNull(current.last_request),
        });
      },
    ],
    [
      '/health/ready',
      (_req, res) => {
        const state = readiness();
        sendJson(res, state.ready ? 200 : 503, state);
      },
    ],
    ['/health/plugins', (_req, res) => sendJson(res, 200, plugins())],
    ...Object.entries(options.routes ?? {}),
  ]);
}

/** Answers one request from `routes`: the rebinding check, GET/HEAD only, errors as JSON. */
function routeRequest(routes: Map<string, HealthRoute>, host: string) {
  const rebinding = rebindingCheck(host);
  return async (req: IncomingMessage, res: ServerResponse) => {
    const refusal = rebinding?.(req);
    if (refusal !== undefined) return sendJson(res, 403, { error: refusal });
    const path = new URL(req.url ?? '/', 'http://health').pathname.replace(/(.)\/+$/, '$1');
    const route = routes.get(path);
    if (!route) return sendJson(res, 404, { error: `no such endpoint: ${path}` });
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      return sendJson(res, 405, { error: `method ${req.method} not allowed` });
    }
    try {
      await route(req, res);
    } catch (error) {
      log.error(`health route ${path} failed`, { error: error as Error });
      if (!res.headersSent) sendJson(res, 500, { error: 'internal error' });
      else res.end();
    }
  };
}

export async function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const { host = '127.0.0.1' } = options;
  const routes = healthRoutes(options);
  const handle = routeRequest(routes, host);
  // node:http loads here, not at import: a server over stdio never needs it (cold start).
  const { createServer } = await import('node:http');
  const server = createServer(handle);
  // Health probes are short; don't let an idle keep-alive socket hold close() up.
  server.keepAliveTimeout = 1000;

  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new PortInUseError(
              options.port,
              host,
              'health',
              'choose another with --health-port or health_port',
            )
          : error,
      );
    };
    server.once('error', onError);
    server.listen(options.port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });

  warnIfExposed(host, options.hostSetting ?? HOST_SETTING, log);
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${urlHost}:${address.port}`,
    port: address.port,
    host,
    addRoute: (path, handler) => routes.set(path, handler),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
