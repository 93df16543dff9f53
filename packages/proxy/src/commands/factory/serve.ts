/**
 * The `mcp-factory` command: load configuration, load the chosen plugins once, serve them over
 * stdio or HTTP (with the health server beside it) until a signal or, under stdio, the client
 * closing our stdin.
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CODE_MODE_PLUGIN,
  type CodeMode,
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
  type Readiness,
  reserveStdoutForProtocol,
  startHealthServer,
} from '@mcpbox/framework';
import { fail } from '../exit.ts';
import { namePluginPaths } from '../pluginPaths.ts';
import { createShutdown } from '../shutdown.ts';
import { httpClientConfig, stdioClientConfig } from './clientConfig.ts';
import { loadPlugins } from './loadPlugins.ts';
import { selectPlugins } from './selectPlugins.ts';

export interface FactoryOptions {
  /** `--plugins`: names, paths or npm specifiers. */
  plugins?: string[];
  /** `--config` */
  configFile?: string;
  /** `--http PORT`: switches to Streamable HTTP. */
  httpPort?: number;
  /** `--host`: the HTTP bind address. */
  host?: string;
  /** `--allow-unauthenticated`: serve beyond loopback without authentication, on purpose. */
  allowUnauthenticated?: boolean;
  healthPort?: number;
  /** `--health-host`: the health server's bind address (default 127.0.0.1). */
  healthHost?: string;
  /** `--plugin-dir`, searched before the config's `plugin_dirs` and the repository's plugins/. */
  pluginDirs?: string[];
  stateless?: boolean;
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
const SHIPPED_PLUGIN_DIR = fileURLToPath(new URL('../../plugins', import.meta.url));
const CHECKOUT_PLUGIN_DIR = fileURLToPath(new URL('../../../../../plugins', import.meta.url));
export const BUILTIN_PLUGIN_DIR = existsSync(SHIPPED_PLUGIN_DIR)
  ? SHIPPED_PLUGIN_DIR
  : CHECKOUT_PLUGIN_DIR;
const BIN = fileURLToPath(new URL('../../../bin/mcp-factory.js', import.meta.url));

const log = createLogger('factory');

function readConfig(options: FactoryOptions): Config {
  return loadConfig({
    file: options.configFile,
    env: options.env,
    cwd: options.cwd,
    defaults: { server_name: 'mcp-factory' },
    overrides: {
      transport: options.httpPort === undefined ? undefined : 'http',
      port: options.httpPort,
      host: options.host,
      allow_unauthenticated: options.allowUnauthenticated,
      health_port: options.healthPort,
      health_host: options.healthHost,
      stateless: options.stateless,
      code_mode: options.codeMode,
      log_level: options.logLevel,
    },
  });
}

/** The plugins to load: the selection, plus code mode's plugin when code mode is on or both. */
export function withCodeMode(names: readonly string[], config: Config): string[] {
  if (config.code_mode === 'off' || names.includes(CODE_MODE_PLUGIN)) return [...names];
  return [...names, CODE_MODE_PLUGIN];
}

/** The stdio launch line for the same plugins, with every path absolute. */
function stdioArgs(options: FactoryOptions, names: readonly string[], cwd: string): string[] {
  const args = [BIN, '-p', ...names];
  if (options.configFile) args.push('-c', resolve(cwd, options.configFile));
  for (const dir of options.pluginDirs ?? []) args.push('-d', resolve(cwd, dir));
  if (options.codeMode) args.push('--code-mode', options.codeMode);
  return args;
}

export async function serveFactory(options: FactoryOptions): Promise<void> {
  const cwd = options.cwd ?? process.cwd();
  const config = readConfig(options);
  configureLogging({ level: config.log_level, format: config.log_format });

  const selection = selectPlugins(options.plugins, config);
  if (selection.names.length === 0) throw fail('No plugins specified (use --plugins or config)');
  // A plugin given by path goes by its folder's or file's name.
  const named = namePluginPaths(withCodeMode(selection.names, config), config, cwd);

  const pluginDirs = [
    ...(options.pluginDirs ?? []).map((dir) => resolve(cwd, dir)),
    ...config.plugin_dirs,
    BUILTIN_PLUGIN_DIR,
  ];
  // OAuth in front of HTTP, the TOTP gate, metrics and the JSONL tool-call log
  // (`{tool_log_dir}/tool_calls.jsonl`, redacted by the config's `redact_*` rules too), all from
  // the config — as in mcp-proxy.
  // Cluster mode (replicas behind a load balancer): the gate's state, the requestState key, the
  // introspection cache and resource updates shared through Redis; the plugins are each
  // replica's own, fixed at start.
  const cluster = await joinCluster(config.cluster, { logger: log });
  const security = createSecurity(config, {
    toolLogger: new JsonlToolLogger({ dir: config.tool_log_dir, redaction: config }),
  });
  const server = createServer(config, {
    pluginDirs,
    requestStateKey: cluster?.requestStateKey,
    cluster: cluster?.link,
    ...security.httpOptions,
  });
  security.install(server);
  await cluster?.relay(server.catalog);
  // Ready also means Redis is reachable: a replica that lost it serves, but not as the cluster.
  const notReadyInCluster = (): Readiness => {
    const away = cluster?.notReady();
    return away === undefined ? { ready: true } : { ready: false, error: away };
  };

  const http = config.transport !== 'stdio';
  // Under stdio, stdout carries only protocol messages — also while plugins load and print.
  if (!http) reserveStdoutForProtocol();
  let loading = true;
  // Ready means clients can connect: the MCP endpoint listens (the HTTP stack loads on demand).
  let serving = false;
  let missing: string[] = [];
  let health: HealthServer | undefined;
  if (http) {
    // Up before plugins load, so /health/ready can say "not yet" while they do.
    health = await startHealthServer({
      port: config.health_port,
      host: config.health_host,
      stats: server.stats,
      readiness: () =>
        loading
          ? { ready: false, error: `loading plugins: ${named.names.join(', ')}` }
          : !serving
            ? { ready: false, error: 'opening the MCP endpoint' }
            : missing.length > 0
              ? { ready: false, error: `plugins not loaded: ${missing.join(', ')}` }
              : notReadyInCluster(),
      plugins: () => server.registry.getSummary(),
      routes: security.metrics ? { '/metrics': security.metrics.handler } : {},
    });
    log.info(`health endpoints at ${health.url}/health`);
  }

  const shutdown = createShutdown(async () => {
    await server.close();
    // What plugins hold outside the catalog (kernels, processes) ends before we exit.
    await server.registry.closeAll();
    await health?.close();
    await security.close();
    await cluster?.close();
  }, log);

  try {
    const outcome = await loadPlugins(server.registry, named.names, named.config);
    loading = false;
    missing = outcome.failed.map((f) => f.plugin);
    if (outcome.loaded.length === 0) {
      throw fail(
        `No plugins loaded successfully:\n${outcome.failed.map((f) => `  ${f.error}`).join('\n')}`,
      );
    }
    for (const failure of outcome.failed) log.error(failure.error);

    const totals = server.registry.getSummary().totals;
    const what =
      `${count(outcome.loaded.length, 'plugin')} (${outcome.loaded.join(', ')}): ` +
      `${count(totals.tools, 'tool')}, ${count(totals.resources, 'resource')}, ${count(totals.prompts, 'prompt')}`;
    const url = await server.start();
    serving = true;
    // Under stdio the client closing our stdin ends the server; close the rest with it.
    void server.closed.then(() => shutdown(undefined));
    if (!http) {
      log.info(`serving ${what} over stdio`);
    } else {
      log.info(`serving ${what}`);
      process.stderr.write(
        [
          '',
          `MCP endpoint:  ${url}`,
          `Health:        ${health?.url}/health`,
          '',
          'Add to your MCP client configuration:',
          httpClientConfig(config.server_name, String(url)),
          '',
          'Or let the client start it over stdio:',
          stdioClientConfig(
            config.server_name,
            process.execPath,
            stdioArgs(
              options,
              outcome.loaded.map((name) => named.paths.get(name) ?? name),
              cwd,
            ),
          ),
          '',
        ].join('\n'),
      );
    }
  } catch (error) {
    await shutdown(undefined);
    throw error;
  }
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
