/**
 * The `mcp-factory` command: load configuration, load the chosen plugins once, serve them over
 * stdio or HTTP (with the health server beside it) until a signal or, under stdio, the client
 * closing our stdin.
 *
 * @module
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type Config,
  configureLogging,
  createLogger,
  createShutdown,
  type HealthServer,
  JsonlToolLogger,
  type Readiness,
  reserveStdoutForProtocol,
} from '@mcpbox/framework';
import { fail } from '../exit.ts';
import { type NamedPlugins, namePluginPaths } from '../pluginPaths.ts';
import {
  BUILTIN_PLUGIN_DIR,
  buildServingCore,
  readServeConfig,
  type ServeFlags,
  type ServingCore,
  startServingHealth,
  withCodeMode,
} from '../serving.ts';
import { httpClientConfig, stdioClientConfig } from './clientConfig.ts';
import { type LoadOutcome, loadPlugins } from './loadPlugins.ts';
import { selectPlugins } from './selectPlugins.ts';

export interface FactoryOptions extends ServeFlags {
  /** `--plugins`: names, paths or npm specifiers. */
  plugins?: string[];
  /** `--plugin-dir`, searched before the config's `plugin_dirs` and the repository's plugins/. */
  pluginDirs?: string[];
  stateless?: boolean;
}

const BIN = fileURLToPath(new URL('../../../bin/mcp-factory.js', import.meta.url));

const log = createLogger('factory');

/** Where start-up stands, for /health/ready. */
interface Startup {
  loading: boolean;
  /** Ready means clients can connect: the MCP endpoint listens (the HTTP stack loads on demand). */
  serving: boolean;
  /** Chosen plugins that failed to load. */
  missing: string[];
}

/** The stdio launch line for the same plugins, with every path absolute. */
function stdioArgs(options: FactoryOptions, names: readonly string[], cwd: string): string[] {
  const args = [BIN, '-p', ...names];
  if (options.configFile) args.push('-c', resolve(cwd, options.configFile));
  for (const dir of options.pluginDirs ?? []) args.push('-d', resolve(cwd, dir));
  if (options.codeMode) args.push('--code-mode', options.codeMode);
  return args;
}

/** The chosen plugins; one given by path goes by its folder's or file's name. */
function namedPlugins(options: FactoryOptions, config: Config, cwd: string): NamedPlugins {
  const selection = selectPlugins(options.plugins, config);
  if (selection.names.length === 0) throw fail('No plugins specified (use --plugins or config)');
  return namePluginPaths(withCodeMode(selection.names, config), config, cwd);
}

export async function serveFactory(options: FactoryOptions): Promise<void> {
  const cwd = options.cwd ?? process.cwd();
  const config = readServeConfig(options, 'mcp-factory', { stateless: options.stateless });
  configureLogging({ level: config.log_level, format: config.log_format });
  const named = namedPlugins(options, config, cwd);

  // Security and cluster as in mcp-proxy; the JSONL tool-call log
  // (`{tool_log_dir}/tool_calls.jsonl`) is redacted by the config's `redact_*` rules too.
  const core = await buildServingCore(
    config,
    log,
    new JsonlToolLogger({ dir: config.tool_log_dir, redaction: config }),
    {
      pluginDirs: [
        ...(options.pluginDirs ?? []).map((dir) => resolve(cwd, dir)),
        ...config.plugin_dirs,
        BUILTIN_PLUGIN_DIR,
      ],
    },
  );
  const { server } = core;

  const http = config.transport !== 'stdio';
  // Under stdio, stdout carries only protocol messages — also while plugins load and print.
  if (!http) reserveStdoutForProtocol();
  const startup: Startup = { loading: true, serving: false, missing: [] };
  // Up before plugins load, so /health/ready can say "not yet" while they do.
  const health = http ? await startFactoryHealth(config, core, named.names, startup) : undefined;
  const shutdown = createShutdown(() => closeFactory(core, health), log);

  try {
    const outcome = await loadChosen(core, named, startup);
    const what = describeLoaded(core, outcome);
    const url = await server.start();
    startup.serving = true;
    // Under stdio the client closing our stdin ends the server; close the rest with it.
    void server.closed.then(() => shutdown(undefined));
    if (!http) {
      log.info(`serving ${what} over stdio`);
    } else {
      log.info(`serving ${what}`);
      const loaded = outcome.loaded.map((name) => named.paths.get(name) ?? name);
      printHowToConnect(config, String(url), health, stdioArgs(options, loaded, cwd));
    }
  } catch (error) {
    await shutdown(undefined);
    throw error;
  }
}

async function startFactoryHealth(
  config: Config,
  core: ServingCore,
  names: readonly string[],
  startup: Startup,
): Promise<HealthServer> {
  // Ready also means Redis is reachable: a replica that lost it serves, but not as the cluster.
  const notReadyInCluster = (): Readiness => {
    const away = core.cluster?.notReady();
    return away === undefined ? { ready: true } : { ready: false, error: away };
  };
  const health = await startServingHealth(
    config,
    core,
    () =>
      startup.loading
        ? { ready: false, error: `loading plugins: ${names.join(', ')}` }
        : !startup.serving
          ? { ready: false, error: 'opening the MCP endpoint' }
          : startup.missing.length > 0
            ? { ready: false, error: `plugins not loaded: ${startup.missing.join(', ')}` }
            : notReadyInCluster(),
    () => core.server.registry.getSummary(),
  );
  log.info(`health endpoints at ${health.url}/health`);
  return health;
}

async function closeFactory(core: ServingCore, health: HealthServer | undefined): Promise<void> {
  await core.server.close();
  // What plugins hold outside the catalog (kernels, processes) ends before we exit.
  await core.server.registry.closeAll();
  await health?.close();
  await core.security.close();
  await core.cluster?.close();
}

/** Loads the chosen plugins; fails when none loads, logs each that did not. */
async function loadChosen(
  core: ServingCore,
  named: NamedPlugins,
  startup: Startup,
): Promise<LoadOutcome> {
  const outcome = await loadPlugins(core.server.registry, named.names, named.config);
  startup.loading = false;
  startup.missing = outcome.failed.map((f) => f.plugin);
  if (outcome.loaded.length === 0) {
    throw fail(
      `No plugins loaded successfully:\n${outcome.failed.map((f) => `  ${f.error}`).join('\n')}`,
    );
  }
  for (const failure of outcome.failed) log.error(failure.error);
  return outcome;
}

function describeLoaded(core: ServingCore, outcome: LoadOutcome): string {
  const totals = core.server.registry.getSummary().totals;
  return (
    `${count(outcome.loaded.length, 'plugin')} (${outcome.loaded.join(', ')}): ` +
    `${count(totals.tools, 'tool')}, ${count(totals.resources, 'resource')}, ${count(totals.prompts, 'prompt')}`
  );
}

/** The endpoints, and the client configuration for HTTP and for stdio, on stderr. */
function printHowToConnect(
  config: Config,
  url: string,
  health: HealthServer | undefined,
  stdioLaunch: string[],
): void {
  process.stderr.write(
    [
      '',
      `MCP endpoint:  ${url}`,
      `Health:        ${health?.url}/health`,
      '',
      'Add to your MCP client configuration:',
      httpClientConfig(config.server_name, url),
      '',
      'Or let the client start it over stdio:',
      stdioClientConfig(config.server_name, process.execPath, stdioLaunch),
      '',
    ].join('\n'),
  );
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
