/**
 * `mcp-proxy serve` (the default command): load configuration, refuse to start if a proxy
 * already answers on the management port, load the autoload plugins, then serve MCP (stdio or
 * HTTP) with the management REST API beside it — under stdio too, writing only to stderr — and
 * the health server (with `/metrics` when `metrics: true`) for HTTP. The framework's security
 * layer (OAuth, gate, pre-call validator, metrics, tool-call log) wraps every tool call.
 *
 * @module
 */
import { resolve } from 'node:path';
import {
  type CodeMode,
  CompositeToolLogger,
  type Config,
  configureLogging,
  createLogger,
  createSecurity,
  createServer,
  type HealthServer,
  JsonlToolLogger,
  joinCluster,
  type LogLevel,
  loadConfig,
  reserveStdoutForProtocol,
  startHealthServer,
  ToolCallTap,
} from '@mcpbox/framework';
import { WebConsole } from '../../console/console.ts';
import { probeManagementPort } from '../../management/client.ts';
import { type ManagementServer, startManagementServer } from '../../management/server.ts';
import { statusJson } from '../../management/status.ts';
import { ClusterPluginSync } from '../../proxy/clusterSync.ts';
import { CommandRegistry } from '../../proxy/commands.ts';
import { InnerClient } from '../../proxy/innerClient.ts';
import { MANAGEMENT_PLUGIN, managementTools } from '../../proxy/managementTools.ts';
import { PluginManager } from '../../proxy/manager.ts';
import { PluginWatcher } from '../../proxy/watch.ts';
import { fail } from '../exit.ts';
import { BUILTIN_PLUGIN_DIR, withCodeMode } from '../factory/serve.ts';
import { namePluginPaths } from '../pluginPaths.ts';
import { createShutdown } from '../shutdown.ts';
import { mgmtTokenFromFlags } from './mgmtToken.ts';

export interface ProxyServeOptions {
  /** `--autoload`: replaces the config's `autoload` list. */
  autoload?: string[];
  configFile?: string;
  /** `--http PORT`: Streamable HTTP (and legacy SSE) instead of stdio. */
  httpPort?: number;
  /** `--host`: the HTTP bind address. */
  host?: string;
  /** `--allow-unauthenticated`: serve beyond loopback without authentication, on purpose. */
  allowUnauthenticated?: boolean;
  healthPort?: number;
  /** `--health-host`: the health server's bind address (default 127.0.0.1). */
  healthHost?: string;
  mgmtPort?: number;
  /** `--mgmt-token`: wins over the config's `management_token` and `MCP_MGMT_TOKEN`; not empty. */
  mgmtToken?: string;
  /** `--mgmt-token-file`: the token read from a file instead (not visible in `ps`). */
  mgmtTokenFile?: string;
  /** `--no-console` (false): no web console; wins over `management_console`. */
  console?: boolean;
  /**
   * `--plugin-dir`, searched before the config's `plugin_dirs`, then `plugin_config_dir`
   * (default `~/mcp_plugins`), then the repository's plugins/.
   */
  pluginDirs?: string[];
  watch?: boolean;
  /** `--code-mode [mode]`: wins over `code_mode` and `MCP_CODE_MODE`. */
  codeMode?: CodeMode;
  logLevel?: LogLevel;
  cwd?: string;
  env?: Readonly<Record<string, string | undefined>>;
}

const log = createLogger('proxy');

function readConfig(options: ProxyServeOptions, mgmtToken: string | undefined): Config {
  return loadConfig({
    file: options.configFile,
    env: options.env,
    cwd: options.cwd,
    defaults: { server_name: 'mcp-proxy' },
    overrides: {
      transport: options.httpPort === undefined ? undefined : 'http',
      port: options.httpPort,
      host: options.host,
      allow_unauthenticated: options.allowUnauthenticated,
      health_port: options.healthPort,
      health_host: options.healthHost,
      management_port: options.mgmtPort,
      management_token: mgmtToken,
      management_console: options.console,
      autoload: options.autoload,
      code_mode: options.codeMode,
      log_level: options.logLevel,
    },
  });
}

export async function serveProxy(options: ProxyServeOptions): Promise<void> {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const written = readConfig(options, mgmtTokenFromFlags(options, cwd));
  // A plugin given by path (--autoload, autoload:) goes by its folder's or file's name.
  const named = namePluginPaths(withCodeMode(written.autoload, written), written, cwd);
  const config: Config = { ...named.config, autoload: named.names };
  configureLogging({ level: config.log_level, format: config.log_format });

  // The anchor's probe treated a token-protected proxy's 401 as "not running"; any answer counts.
  if (await probeManagementPort(config.management_port)) {
    throw fail(
      `an mcp-proxy (or something else) is already running on management port ${config.management_port} — ` +
        'stop it, or choose another port with --mgmt-port',
    );
  }

  const commands = new CommandRegistry();
  // OAuth in front of HTTP, the TOTP gate, the pre-call validator, metrics and the JSONL
  // tool-call log (`{tool_log_dir}/tool_calls.jsonl`), all from the config. Installed first, so
  // the log and the metrics also see calls the gate blocks or the validator rejects — plugin
  // tools, mirrored upstream tools and `proxy__*` tools alike.
  // The console's call feed and charts read calls from the same pipeline, redacted the same way.
  const tap = config.management_console ? new ToolCallTap({ redaction: config }) : undefined;
  const jsonl = new JsonlToolLogger({ dir: config.tool_log_dir, redaction: config });
  // Cluster mode: Redis down at start stops here with the URL and what to do (or, with
  // cluster.fallback: local, this replica serves alone, as the log says). Joined before
  // anything makes a gate: the gate's state lives in Redis then.
  const cluster = await joinCluster(config.cluster, { logger: log });
  const security = createSecurity(config, {
    toolLogger: tap ? new CompositeToolLogger([jsonl, tap]) : jsonl,
  });
  const server = createServer(config, {
    proxy: commands.slot,
    // Code mode on still lists the management tools: the proxy is driven through them.
    listedInCodeMode: [MANAGEMENT_PLUGIN],
    name: config.server_name,
    // One requestState key for every replica: an input round may land on any of them.
    requestStateKey: cluster?.requestStateKey,
    cluster: cluster?.link,
    ...security.httpOptions,
  });
  security.install(server);
  await cluster?.relay(server.catalog);
  // The user's plugin folder (default ~/mcp_plugins, where per-plugin config files live too) is
  // searched after the explicit directories and before the repository's own plugins.
  server.registry.pluginDirs.push(
    ...(options.pluginDirs ?? []).map((dir) => resolve(cwd, dir)),
    ...config.plugin_dirs,
    config.plugin_config_dir,
    BUILTIN_PLUGIN_DIR,
  );
  const manager = new PluginManager({ registry: server.registry, config, commands, env });
  const inner = new InnerClient(server);

  const http = config.transport !== 'stdio';
  // Under stdio, stdout carries only protocol messages — also while plugins load and print.
  if (!http) reserveStdoutForProtocol();
  let management: ManagementServer | undefined;
  let health: HealthServer | undefined;
  let watcher: PluginWatcher | undefined;
  let clusterSync: ClusterPluginSync | undefined;
  let loading = true;
  // Ready also means clients can connect: the MCP endpoint listens (its HTTP stack loads on demand).
  let serving = false;
  // Autoloaded plugins that failed at start-up. Readiness means "serves what it was started
  // with": one of these keeps it at 503 until it loads; a plugin the operator unloads on purpose
  // later does not make the server unready.
  const failedAtStartup: string[] = [];

  const shutdown = createShutdown(async () => {
    await watcher?.close();
    await management?.close();
    await inner.close();
    await server.close();
    await manager.closeAll();
    await health?.close();
    await security.close();
    await clusterSync?.close();
    await cluster?.close();
  }, log);

  try {
    const internal = await manager.loadInternal(
      MANAGEMENT_PLUGIN,
      managementTools({
        manager,
        inner,
        dynamicDispatch: config.dynamic_dispatch,
        status: () => ({
          server: config.server_name,
          transport: config.transport,
          port: http ? portOf(server.url) : undefined,
          healthPort: health?.port,
        }),
      }),
    );
    if (!internal.ok) throw new Error(`management tools failed to load: ${internal.error}`);

    // Claim the management port before loading anything: a second proxy fails fast and clearly.
    management = await startManagementServer({
      manager,
      port: config.management_port,
      token: config.management_token,
      allowUnauthenticated: config.allow_unauthenticated,
      console: config.management_console
        ? new WebConsole({
            manager,
            token: config.management_token,
            tap,
            stats: server.stats,
            gate: security.gate,
          })
        : undefined,
    });

    if (http) {
      health = await startHealthServer({
        port: config.health_port,
        host: config.health_host,
        stats: server.stats,
        readiness: () => {
          if (loading)
            return { ready: false, error: `loading plugins: ${config.autoload.join(', ')}` };
          if (!serving) return { ready: false, error: 'opening the MCP endpoint' };
          const away = cluster?.notReady();
          if (away !== undefined) return { ready: false, error: away };
          const missing = failedAtStartup.filter((name) => !manager.registry.isLoaded(name));
          return missing.length > 0
            ? { ready: false, error: `autoloaded plugins not loaded: ${missing.join(', ')}` }
            : { ready: true };
        },
        plugins: () => statusJson(manager.registry.getSummary()),
        routes: security.metrics ? { '/metrics': security.metrics.handler } : {},
      });
    }

    for (const name of config.autoload) {
      const result = await manager.load(name);
      if (result.ok) log.info(`loaded ${name}: ${result.tools.join(', ') || '(no tools)'}`);
      else {
        failedAtStartup.push(name);
        log.error(result.error ?? `Plugin '${name}' failed to load`);
      }
    }
    if (cluster) {
      // Seeds the cluster's plugin set, or adopts it (a replica that starts later).
      clusterSync = new ClusterPluginSync(manager, cluster.link);
      await clusterSync.start();
      manager.clusterView = () => clusterSync!.view();
    }
    manager.markStartupDone();
    loading = false;

    if (options.watch) {
      watcher = new PluginWatcher({ manager });
      // Up before clients connect, so no save made after start-up goes unseen.
      await watcher.ready;
      log.info(
        `watching plugin files for changes (${watcher.plugins.join(', ') || 'none loaded yet'})`,
      );
    }

    const url = await server.start();
    serving = true;
    const totals = server.registry.getSummary().totals;
    const what = `${totals.plugins} plugin(s), ${totals.tools} tools`;
    const mgmt =
      `management API ${management.url}${config.management_token ? ' (token required)' : ''}` +
      (config.management_console ? `; console ${management.url}/` : '');
    if (!http) {
      log.info(`serving ${what} over stdio; ${mgmt}`);
      process.stdin.once('end', () => void shutdown('stdin closed'));
    } else {
      log.info(`serving ${what} at ${url}; ${mgmt}; health ${health?.url}/health`);
    }
  } catch (error) {
    await shutdown(undefined);
    throw error;
  }
}

function portOf(url: string | undefined): number | undefined {
  return url ? Number(new URL(url).port) : undefined;
}
