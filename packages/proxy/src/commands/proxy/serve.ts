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
  CompositeToolLogger,
  type Config,
  configureLogging,
  createLogger,
  createShutdown,
  type HealthServer,
  JsonlToolLogger,
  reserveStdoutForProtocol,
  ToolCallTap,
  upstreamSkillOrigins,
} from '@mcpbox/framework';
import { ClusterPluginSync } from '../../cluster/clusterSync.ts';
import { ClusterPolicySync } from '../../cluster/policySync.ts';
import { WebConsole } from '../../console/console.ts';
import { probeManagementPort } from '../../management/client.ts';
import { type ManagementServer, startManagementServer } from '../../management/server.ts';
import { HANDLERS, OPERATORS } from '../../operations/handlers.ts';
import { statusJson } from '../../operations/status.ts';
import { AccessAdmin } from '../../proxy/accessAdmin.ts';
import { CommandRegistry } from '../../proxy/commands.ts';
import { InnerClient } from '../../proxy/innerClient.ts';
import { PluginManager } from '../../proxy/manager.ts';
import { PluginWatcher } from '../../proxy/watch.ts';
import { MANAGEMENT_PLUGIN, managementTools } from '../../tools/managementTools.ts';
import { fail } from '../exit.ts';
import { namePluginPaths } from '../pluginPaths.ts';
import {
  BUILTIN_PLUGIN_DIR,
  buildServingCore,
  readServeConfig,
  type ServeFlags,
  type ServingCore,
  startServingHealth,
  withCodeMode,
} from '../serving.ts';
import { mgmtTokenFromFlags } from './mgmtToken.ts';

export interface ProxyServeOptions extends ServeFlags {
  /** `--autoload`: replaces the config's `autoload` list. */
  autoload?: string[];
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
}

const log = createLogger('proxy');

/** The serving core with the plugin manager driving it. */
interface ProxyCore extends ServingCore {
  manager: PluginManager;
  inner: InnerClient;
  /** The console's call feed, when the console is on. */
  tap: ToolCallTap | undefined;
}

/** What start-up has got to: what shutdown closes, and what /health/ready reports. */
interface Running {
  management?: ManagementServer;
  health?: HealthServer;
  watcher?: PluginWatcher;
  clusterSync?: ClusterPluginSync;
  policySync?: ClusterPolicySync;
  /** Stops reloading the policy on SIGHUP. */
  stopHangup?: () => void;
  loading: boolean;
  /**
   * Ready also means clients can connect: the MCP endpoint listens (its HTTP stack loads on
   * demand).
   */
  serving: boolean;
  /**
   * Autoloaded plugins that failed at start-up. Readiness means "serves what it was started
   * with": one of these keeps it at 503 until it loads; a plugin the operator unloads on purpose
   * later does not make the server unready.
   */
  failedAtStartup: string[];
}

export async function serveProxy(options: ProxyServeOptions): Promise<void> {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const config = proxyConfig(options, cwd);
  await refuseSecondProxy(config.management_port);
  const proxy = await buildProxy(options, config, cwd, env);

  const http = config.transport !== 'stdio';
  // Under stdio, stdout carries only protocol messages — also while plugins load and print.
  if (!http) reserveStdoutForProtocol();
  const running: Running = { loading: true, serving: false, failedAtStartup: [] };
  const shutdown = createShutdown(() => closeProxy(proxy, running), log);

  try {
    await loadManagementTools(proxy, config, http, running);
    // Claim the management port before loading anything: a second proxy fails fast and clearly.
    const management = await startManagement(proxy, config);
    running.management = management;
    if (http) running.health = await startProxyHealth(proxy, config, running);
    await autoload(proxy, config, running);
    if (options.watch) await watchPlugins(proxy, running);

    const url = await proxy.server.start();
    running.serving = true;
    const totals = proxy.server.registry.getSummary().totals;
    const what = `${totals.plugins} plugin(s), ${totals.tools} tools`;
    const mgmt =
      `management API ${management.url}${config.management_token ? ' (token required)' : ''}` +
      (config.management_console ? `; console ${management.url}/` : '');
    if (!http) {
      log.info(`serving ${what} over stdio; ${mgmt}`);
      process.stdin.once('end', () => void shutdown('stdin closed'));
    } else {
      log.info(`serving ${what} at ${url}; ${mgmt}; health ${running.health?.url}/health`);
    }
  } catch (error) {
    await shutdown(undefined);
    throw error;
  }
}

/**
 * The configuration, with code mode's plugin added to `autoload`; a plugin given by path
 * (--autoload, autoload:) goes by its folder's or file's name.
 */
function proxyConfig(options: ProxyServeOptions, cwd: string): Config {
  const written = readServeConfig(options, 'mcp-proxy', {
    management_port: options.mgmtPort,
    management_token: mgmtTokenFromFlags(options, cwd),
    management_console: options.console,
    autoload: options.autoload,
  });
  const named = namePluginPaths(withCodeMode(written.autoload, written), written, cwd);
  const config: Config = { ...named.config, autoload: named.names };
  configureLogging({ level: config.log_level, format: config.log_format });
  return config;
}

async function refuseSecondProxy(managementPort: number): Promise<void> {
  // The anchor's probe treated a token-protected proxy's 401 as "not running"; any answer counts.
  if (await probeManagementPort(managementPort)) {
    throw fail(
      `an mcp-proxy (or something else) is already running on management port ${managementPort} — ` +
        'stop it, or choose another port with --mgmt-port',
    );
  }
}

async function buildProxy(
  options: ProxyServeOptions,
  config: Config,
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<ProxyCore> {
  const commands = new CommandRegistry();
  // The security layer is installed first, so the tool-call log and the metrics also see calls
  // the gate blocks or the validator rejects — plugin tools, mirrored upstream tools and
  // `proxy__*` tools alike. The console's call feed and charts read calls from the same
  // pipeline, redacted the same way.
  const tap = config.management_console ? new ToolCallTap({ redaction: config }) : undefined;
  const jsonl = new JsonlToolLogger({ dir: config.tool_log_dir, redaction: config });
  // Cluster mode: Redis down at start stops here with the URL and what to do (or, with
  // cluster.fallback: local, this replica serves alone, as the log says).
  const core = await buildServingCore(
    config,
    log,
    tap ? new CompositeToolLogger([jsonl, tap]) : jsonl,
    {
      proxy: commands.slot,
      // Code mode on still lists the management tools: the proxy is driven through them.
      listedInCodeMode: [MANAGEMENT_PLUGIN],
      name: config.server_name,
    },
  );
  // The user's plugin folder (default ~/mcp_plugins, where per-plugin config files live too) is
  // searched after the explicit directories and before the repository's own plugins.
  core.server.registry.pluginDirs.push(
    ...(options.pluginDirs ?? []).map((dir) => resolve(cwd, dir)),
    ...config.plugin_dirs,
    config.plugin_config_dir,
    BUILTIN_PLUGIN_DIR,
  );
  const manager = new PluginManager({ registry: core.server.registry, config, commands, env });
  const { access, catalog, limits, pins } = core.server;
  manager.approvals = core.server.approvals;
  manager.pins = pins;
  manager.audit = core.server.audit;
  manager.skillOffers = upstreamSkillOrigins(core.server.skills, createLogger('proxy'));
  manager.access = new AccessAdmin({
    access,
    catalog,
    configFile: config.config_file,
    env,
    ...(limits && { limits }),
    ...(core.security.apiKeys && { apiKeys: core.security.apiKeys }),
  });
  return { ...core, manager, inner: new InnerClient(core.server), tap };
}

async function closeProxy(proxy: ProxyCore, running: Running): Promise<void> {
  await running.watcher?.close();
  await running.management?.close();
  await proxy.inner.close();
  await proxy.server.close();
  await proxy.manager.closeAll();
  await running.health?.close();
  await proxy.security.close();
  running.stopHangup?.();
  await running.clusterSync?.close();
  await running.policySync?.close();
  await proxy.cluster?.close();
}

/** The `proxy__*` tools that drive the proxy from an MCP client. */
async function loadManagementTools(
  proxy: ProxyCore,
  config: Config,
  http: boolean,
  running: Running,
): Promise<void> {
  const { manager, inner, server } = proxy;
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
        healthPort: running.health?.port,
      }),
    }),
  );
  if (!internal.ok) throw new Error(`management tools failed to load: ${internal.error}`);
}

/** The management REST API, with the web console when it is on. */
function startManagement(proxy: ProxyCore, config: Config): Promise<ManagementServer> {
  const { manager } = proxy;
  return startManagementServer({
    manager,
    port: config.management_port,
    token: config.management_token,
    allowUnauthenticated: config.allow_unauthenticated,
    console: config.management_console
      ? new WebConsole({
          manager,
          token: config.management_token,
          tap: proxy.tap,
          stats: proxy.server.stats,
          gate: proxy.security.gate,
          skills: proxy.server.skills,
        })
      : undefined,
  });
}

function startProxyHealth(
  proxy: ProxyCore,
  config: Config,
  running: Running,
): Promise<HealthServer> {
  const { manager } = proxy;
  return startServingHealth(
    config,
    proxy,
    () => {
      if (running.loading)
        return { ready: false, error: `loading plugins: ${config.autoload.join(', ')}` };
      if (!running.serving) return { ready: false, error: 'opening the MCP endpoint' };
      const away = proxy.cluster?.notReady();
      if (away !== undefined) return { ready: false, error: away };
      const missing = running.failedAtStartup.filter((name) => !manager.registry.isLoaded(name));
      return missing.length > 0
        ? { ready: false, error: `autoloaded plugins not loaded: ${missing.join(', ')}` }
        : { ready: true };
    },
    () => statusJson(manager.registry.getSummary()),
  );
}

/** Loads the autoload plugins, then joins (or seeds) the cluster's plugin set. */
async function autoload(proxy: ProxyCore, config: Config, running: Running): Promise<void> {
  const { manager, cluster } = proxy;
  for (const name of config.autoload) {
    const result = await manager.load(name);
    if (result.ok) log.info(`loaded ${name}: ${result.tools.join(', ') || '(no tools)'}`);
    else {
      running.failedAtStartup.push(name);
      log.error(result.error ?? `Plugin '${name}' failed to load`);
    }
  }
  if (cluster) {
    // Seeds the cluster's plugin set, or adopts it (a replica that starts later).
    const clusterSync = new ClusterPluginSync(manager, cluster.link);
    running.clusterSync = clusterSync;
    await clusterSync.start();
    manager.clusterView = () => clusterSync.view();
    running.policySync = new ClusterPolicySync(manager, cluster.link);
    await running.policySync.start();
  }
  running.stopHangup = reloadOnHangup(manager);
  manager.markStartupDone();
  running.loading = false;
}

async function watchPlugins(proxy: ProxyCore, running: Running): Promise<void> {
  const watcher = new PluginWatcher({ manager: proxy.manager });
  running.watcher = watcher;
  // Up before clients connect, so no save made after start-up goes unseen.
  await watcher.ready;
  log.info(
    `watching plugin files for changes (${watcher.plugins.join(', ') || 'none loaded yet'})`,
  );
}

/** `kill -HUP`: re-read views and policy, as `mcp-proxy reload-policy` does (and shared alike). */
function reloadOnHangup(manager: PluginManager): () => void {
  const onHangup = () =>
    void HANDLERS.reload_policy.run({ manager, operator: OPERATORS.sighup }, {}).then((result) => {
      if (result.ok) log.info(`SIGHUP: views and policy reloaded from ${result.file}`);
      else log.error(`SIGHUP: views and policy not reloaded: ${result.error}`);
    });
  process.on('SIGHUP', onHangup);
  return () => process.off('SIGHUP', onHangup);
}

function portOf(url: string | undefined): number | undefined {
  return url ? Number(new URL(url).port) : undefined;
}
