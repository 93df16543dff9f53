/**
 * The management REST API of mcp-proxy, on `127.0.0.1:<management_port>` (default 12299). Its
 * routes are those of the operations table (`operations/table.ts`), each answered by its
 * operation's handler:
 *
 * | method + path              | body                  | 200                                   |
 * |----------------------------|-----------------------|---------------------------------------|
 * | GET  /proxy/status         |                       | totals + per-plugin tools/resources/prompts |
 * | GET  /proxy/plugins        |                       | `{plugins: [loaded], available: [...]}` |
 * | GET  /proxy/tools          |                       | `{tools: [{name, plugin, dynamic}]}`  |
 * | POST /proxy/load           | `{"plugin": "name"}`  | `{ok: true, plugin, tools, …}`        |
 * | POST /proxy/unload         | `{"plugin": "name"}`  | `{ok: true, plugin, removed, …}`      |
 * | POST /proxy/reload         | `{"plugin": "name"}`  | `{ok: true, plugin, tools, …}`        |
 * | GET  /proxy/commands       |                       | `{commands: [{name, plugin}]}`        |
 * | POST /proxy/command/{name} | optional JSON object  | `{ok: true, command, result}`         |
 *
 * With a token every request needs `Authorization: Bearer <token>` (compared in constant time),
 * else 401 `{"ok":false,"error":"unauthorized"}`. A failed operation or a malformed body is 400
 * `{"ok":false,"error":…}`; an unknown command or path 404. On a loopback bind, requests whose
 * `Host` or `Origin` is not a loopback name are refused (the framework's DNS-rebinding check: a
 * web page cannot reach the API through a rebound name), and so are state-changing requests
 * that a browser marks as coming from another site (`origin.ts`), with or without a token.
 * Bodies are JSON whatever their `Content-Type` says (`curl -d` sends
 * `application/x-www-form-urlencoded`).
 *
 * The server writes nothing to stdout: under stdio that belongs to the MCP protocol.
 *
 * @module
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  checkUnauthenticatedBind,
  createLogger,
  rebindingCheck,
  sendJson,
} from '@mcpbox/framework';
import { type Caller, perform } from '../operations/handlers.ts';
import {
  OPERATIONS,
  type OperationName,
  operationNamed,
  type RestRoute,
} from '../operations/table.ts';
import type { PluginManager } from '../proxy/manager.ts';
import { bearerCheck } from './auth.ts';
import { HttpError } from './errors.ts';
import { crossSiteRefusal } from './origin.ts';
import { restArgs } from './restArgs.ts';

/**
 * Pages served beside the API with their own log-in (the web console, `console/console.ts`):
 * named here by what the server needs of them, so the API does not import the console.
 */
export interface ManagementConsole {
  /** Whether `path` is the console's (the rest belongs to the REST API). */
  handles(path: string): boolean;
  handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<void>;
  close(): void;
}

export interface ManagementServerOptions {
  manager: PluginManager;
  /** Default 12299; 0 picks a free port. */
  port: number;
  /** Default `127.0.0.1`. */
  host?: string;
  /** Bearer token; unset or empty means no authentication. */
  token?: string;
  /** Without a token, a `host` beyond loopback is refused unless this is true. */
  allowUnauthenticated?: boolean;
  /** The web console at `/` and `/console/*` (its own log-in); none: those paths are 404. */
  console?: ManagementConsole;
}

export interface ManagementServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** The port is taken: another proxy (or something else) already listens there. */
export class ManagementPortInUseError extends Error {
  readonly code = 'MGMT_PORT_IN_USE';
  constructor(readonly port: number) {
    super(
      `management port ${port} is already in use — another mcp-proxy is probably running ` +
        '(stop it, or choose another port with --mgmt-port or management_port)',
    );
    this.name = 'ManagementPortInUseError';
  }
}

const log = createLogger('management');

/** An operation's REST route, found by method and path (without its path argument). */
interface Route {
  operation: OperationName;
  route: RestRoute;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  sendJson(res, status, body, status === 401 ? { 'www-authenticate': 'Bearer' } : undefined);
}

/** Every REST route of the operations table, keyed `METHOD /path`. */
function tableRoutes(): Map<string, Route> {
  const routes = new Map<string, Route>();
  for (const operation of OPERATIONS) {
    for (const route of operation.rest) {
      routes.set(`${route.method} ${route.path}`, { operation: operation.name, route });
    }
  }
  return routes;
}

/** The route's path and its path argument: `/proxy/command/echo` → `/proxy/command`, `echo`. */
function splitPath(path: string, routes: Map<string, Route>): [string, string | undefined] {
  for (const { route } of routes.values()) {
    if (route.param === undefined || !path.startsWith(`${route.path}/`)) continue;
    const rest = path.slice(route.path.length + 1);
    if (!rest.includes('/')) return [route.path, decodeURIComponent(rest)];
  }
  return [path, undefined];
}

/** Starts the API; rejects with {@link ManagementPortInUseError} when the port is taken. */
export async function startManagementServer(
  options: ManagementServerOptions,
): Promise<ManagementServer> {
  const host = options.host ?? '127.0.0.1';
  if (!options.token) {
    checkUnauthenticatedBind(
      {
        what: 'the management API',
        host,
        allowUnauthenticated: options.allowUnauthenticated,
        remedies: {
          loopback: 'host 127.0.0.1',
          authenticate: 'set a token (--mgmt-token, management_token)',
          allow: '--allow-unauthenticated (or allow_unauthenticated: true)',
        },
      },
      log,
    );
  }
  const authorized = bearerCheck(options.token);
  const routes = tableRoutes();
  // How the API's users load a plugin: with the CLI, `mcp-proxy load echo`.
  const howToLoad = (plugin: string) =>
    `mcp-proxy ${operationNamed('load').cli.command.split(' ')[0]} ${plugin}`;
  const caller: Caller = { manager: options.manager, howToLoad, by: 'management-api' };
  const rebinding = rebindingCheck(host);

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const refusal = rebinding?.(req);
    if (refusal !== undefined) return send(res, 403, { ok: false, error: refusal });
    const crossSite = crossSiteRefusal(req, req.socket.localPort ?? 0);
    if (crossSite) return send(res, 403, { ok: false, error: crossSite });
    const path = new URL(req.url ?? '/', 'http://mgmt').pathname.replace(/\/+$/, '');
    // The console has its own log-in (a session cookie, not the bearer header).
    if (options.console?.handles(path)) return options.console.handle(req, res, path);
    if (!authorized(req.headers.authorization)) {
      return send(res, 401, { ok: false, error: 'unauthorized' });
    }
    const [routePath, param] = splitPath(path, routes);
    const route = routes.get(`${req.method} ${routePath}`);
    if (!route) {
      const other = [...routes.keys()].some((key) => key.endsWith(` ${routePath}`));
      return other
        ? send(res, 405, { ok: false, error: `method ${req.method} not allowed on ${path}` })
        : send(res, 404, { ok: false, error: `no such endpoint: ${path}` });
    }
    try {
      const args = await restArgs(req, route.route, param);
      const answer = (await perform(route.operation, caller, args)).rest();
      send(res, answer.status, answer.body);
    } catch (error) {
      if (error instanceof HttpError) return send(res, error.status, error.toJSON());
      log.error(`management request ${req.method} ${path} failed`, error as Error);
      send(res, 500, { ok: false, error: 'internal error' });
    }
  };

  const server: Server = createServer((req, res) => void handle(req, res));
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new ManagementPortInUseError(options.port) : error);
    server.once('error', onError);
    server.listen(options.port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        options.console?.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
