/**
 * What mcp-factory and `mcp-proxy serve` share, so the two commands cannot drift apart: the
 * flags both take and how they become configuration, the demo plugins both search last, code
 * mode's plugin, and the serving core — the cluster joined first, the security layer, the server
 * built around it — plus the health server beside an HTTP endpoint.
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  type ClusterMembership,
  CODE_MODE_PLUGIN,
  type CodeMode,
  type Config,
  type ConfigOverrides,
  createSecurity,
  createServer,
  errorMessage,
  type HealthServer,
  joinCluster,
  type Logger,
  type LogLevel,
  loadConfig,
  type McpboxServer,
  type Readiness,
  type Security,
  type ServerOptions,
  startHealthServer,
  type ToolLogger,
} from '@mcpbox/framework';
import { serveSkillsDir } from '../proxy/skillsWatch.ts';
import { fail } from './exit.ts';

/** The flags both serving commands take. */
export interface ServeFlags {
  /** `--config` */
  configFile?: string;
  /** `--http PORT`: Streamable HTTP (mcp-proxy: and legacy SSE) instead of stdio. */
  httpPort?: number;
  /** `--host`: the HTTP bind address. */
  host?: string;
  /** `--allow-unauthenticated`: serve beyond loopback without authentication, on purpose. */
  allowUnauthenticated?: boolean;
  healthPort?: number;
  /** `--health-host`: the health server's bind address (default 127.0.0.1). */
  healthHost?: string;
  /** `--view NAME`: over stdio, serve this view (virtual server) instead of the whole catalog. */
  view?: string;
  /** `--code-mode [mode]`: wins over `code_mode` and `MCP_CODE_MODE`. */
  codeMode?: CodeMode;
  logLevel?: LogLevel;
  cwd?: string;
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * The demo plugins (echo, greet, demo_full, ipybox), always searched last: compiled into the
 * package's dist/plugins by the build, so an installed mcp-factory has them; running from the
 * sources in a checkout, the repository's plugins/ folder (which also holds the test plugins).
 */
const SHIPPED_PLUGIN_DIR = fileURLToPath(new URL('../plugins', import.meta.url));
const CHECKOUT_PLUGIN_DIR = fileURLToPath(new URL('../../../../plugins', import.meta.url));
export const BUILTIN_PLUGIN_DIR = existsSync(SHIPPED_PLUGIN_DIR)
  ? SHIPPED_PLUGIN_DIR
  : CHECKOUT_PLUGIN_DIR;

/**
 * The configuration for `flags`: the command's own `overrides` sit between the listener flags
 * and the code-mode and log-level flags.
 */
export function readServeConfig(
  flags: ServeFlags,
  serverName: string,
  overrides: ConfigOverrides,
): Config {
  const config = loadConfig({
    file: flags.configFile,
    env: flags.env,
    cwd: flags.cwd,
    defaults: { server_name: serverName },
    overrides: {
      transport: flags.httpPort === undefined ? undefined : 'http',
      port: flags.httpPort,
      host: flags.host,
      allow_unauthenticated: flags.allowUnauthenticated,
      health_port: flags.healthPort,
      health_host: flags.healthHost,
      ...overrides,
      view: flags.view,
      code_mode: flags.codeMode,
      log_level: flags.logLevel,
    },
  });
  if (flags.view !== undefined && config.transport !== 'stdio') {
    throw fail(
      `--view serves one view over stdio; over ${config.transport} each view has its own path, ` +
        `/mcp/<name> (drop --view, and connect to /mcp/${flags.view})`,
    );
  }
  return config;
}

/** The plugins to load: the selection, plus code mode's plugin when code mode is on or both. */
export function withCodeMode(names: readonly string[], config: Config): string[] {
  if (config.code_mode === 'off' || names.includes(CODE_MODE_PLUGIN)) return [...names];
  return [...names, CODE_MODE_PLUGIN];
}

export interface ServingCore {
  cluster: ClusterMembership | undefined;
  security: Security;
  server: McpboxServer;
}

/**
 * Joins the cluster (if configured), then builds the security layer and the server with it
 * installed. OAuth in front of HTTP, the TOTP gate, the pre-call validator, metrics and the
 * tool-call log all come from the config. In cluster mode the gate's state, the requestState
 * key, the introspection cache and resource updates are shared through Redis — so the cluster
 * is joined before anything makes a gate — while the plugins stay each replica's own.
 */
export async function buildServingCore(
  config: Config,
  log: Logger,
  toolLogger: ToolLogger,
  serverOptions: ServerOptions,
): Promise<ServingCore> {
  const cluster = await joinCluster(config.cluster, { logger: log });
  const security = createSecurity(config, { toolLogger });
  const server = createServer(config, {
    ...serverOptions,
    // One requestState key for every replica: an input round may land on any of them.
    requestStateKey: cluster?.requestStateKey,
    cluster: cluster?.link,
    ...security.httpOptions,
  });
  security.install(server);
  await cluster?.relay(server.catalog);
  if (config.skills_dir) {
    await serveSkillsDir(server, config.skills_dir, log).catch((error: unknown) => {
      throw fail(`skills_dir: ${errorMessage(error)}`);
    });
  }
  return { cluster, security, server };
}

/** The health server beside an HTTP endpoint, with `/metrics` when metrics are on. */
export function startServingHealth(
  config: Config,
  core: ServingCore,
  readiness: () => Readiness,
  plugins: () => unknown,
): Promise<HealthServer> {
  return startHealthServer({
    port: config.health_port,
    host: config.health_host,
    stats: core.server.stats,
    readiness,
    plugins,
    routes: core.security.metrics ? { '/metrics': core.security.metrics.handler } : {},
  });
}
