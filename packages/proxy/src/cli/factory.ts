/**
 * `mcp-factory`: serve a fixed set of plugins over stdio (default) or HTTP.
 *
 * This file only declares flags; the work is in `commands/factory/serve.ts`, imported lazily so
 * `mcp-factory --help` loads neither the server nor any plugin.
 *
 * @module
 */
import { Command } from 'commander';
import { runCommand } from '../commands/exit.ts';
import { codeMode, collect, packageVersion, portNumber } from './options.ts';

const program = new Command('mcp-factory')
  .description(
    'Serve MCP plugins loaded at start-up: stdio by default, Streamable HTTP with --http.\n' +
      'Plugins come from --plugins, else the config file (plugins_load, autoload, enabled plugins:).',
  )
  .version(packageVersion(), '-V, --version', 'print the version')
  .option('-p, --plugins <names...>', 'plugins to load (names, paths or npm packages)')
  .option('-c, --config <file>', 'YAML configuration file')
  .option(
    '--http <port>',
    'serve Streamable HTTP at http://127.0.0.1:<port>/mcp (0: any free port)',
    portNumber,
  )
  .option('--host <address>', 'HTTP bind address (default 127.0.0.1: this machine only)')
  .option(
    '--allow-unauthenticated',
    'serve HTTP beyond loopback without authentication (refused otherwise)',
  )
  .option('--health-port <port>', 'health server port (default: HTTP port + 1)', portNumber)
  .option('--health-host <address>', 'health server bind address (default 127.0.0.1)')
  .option('-d, --plugin-dir <dir>', 'extra plugin directory (repeatable)', collect)
  .option('--stateless', 'Streamable HTTP without sessions')
  .option(
    '--view <name>',
    'over stdio: serve this view of the config (views:) instead of every tool; over HTTP each view is at /mcp/<name>',
  )
  .option(
    '--code-mode [mode]',
    'code mode: list search_tools/execute_code instead of every tool (on), beside them (both), or off',
    codeMode,
  )
  .option('--log-level <level>', 'debug, info, warning or error')
  .addHelpText(
    'after',
    '\nExamples:\n' +
      '  mcp-factory -p echo greet                  # stdio, for a client that launches the server\n' +
      '  mcp-factory --http 8000 -p echo demo_full  # http://127.0.0.1:8000/mcp\n' +
      '  mcp-factory -c factory.yaml                # plugins and settings from a file',
  )
  .showHelpAfterError()
  .action(async (options) => {
    await runCommand(async () => {
      const { serveFactory } = await import('../commands/factory/serve.ts');
      await serveFactory({
        plugins: options.plugins,
        configFile: options.config,
        httpPort: options.http,
        host: options.host,
        allowUnauthenticated: options.allowUnauthenticated,
        healthPort: options.healthPort,
        healthHost: options.healthHost,
        pluginDirs: options.pluginDir,
        stateless: options.stateless,
        view: options.view,
        codeMode: options.codeMode === true ? 'on' : options.codeMode,
        logLevel: options.logLevel,
      });
    });
  });

await program.parseAsync(process.argv);
